package sets

import (
	"context"
	"fmt"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// server is a running server under test at url: an address on network, or a ws:// URL.
type server struct {
	network, url string
	proc         *childserve.Proc
	stop         func()
}

// servers are the running servers a group of sets shares, by name.
type servers map[string]*server

// start starts each of impls not running yet; on an error it stops them all.
func (ss servers) start(ctx context.Context, group string, impls ...target) error {
	for _, impl := range impls {
		if ss[impl.name] != nil {
			continue
		}
		s, err := impl.start(ctx)
		if err != nil {
			ss.Close()
			return fmt.Errorf("%s: starting %s: %w", group, impl.name, err)
		}
		ss[impl.name] = s
	}
	return nil
}

// Close stops the servers.
func (ss servers) Close() {
	for _, s := range ss {
		s.stop()
	}
}

// dialer dials addr on network, or the ws:// URL addr.
func dialer(network, addr string) func(context.Context) (pipeline.Conn, error) {
	if network == "" {
		return msgload.Dialer(addr)
	}
	return msgload.StreamDialer(network, addr)
}

func startChild(impl string) func(context.Context) (*server, error) {
	return func(ctx context.Context) (*server, error) {
		s, err := childserve.Start(ctx, impl)
		if err != nil {
			return nil, err
		}
		return &server{s.Network, s.Addr, s.Proc, s.Stop}, nil
	}
}

// startCaddy starts bin/caddy with Caddyfile.bench, dialled over TCP or WebSocket.
func startCaddy(e *Env, tcp bool) func(context.Context) (*server, error) {
	return func(ctx context.Context) (*server, error) {
		c, err := caddyproc.Start(ctx, e.CaddyBin, e.CaddyConfig)
		if err != nil {
			return nil, err
		}
		if tcp {
			return &server{"tcp", c.TCP, c.Proc, c.Stop}, nil
		}
		return &server{"", c.WS, c.Proc, c.Stop}, nil
	}
}

// wsconnChild is the WebSocket server of ours outside Caddy.
const wsconnChild = "package wsconn serving rpccore with the demo service (the code behind the jsonrpc handler's " +
	"WebSocket upgrade) in a child process of the harness, over ws:// on loopback"

// WebSocket holds the servers the WebSocket sets share.
type WebSocket struct {
	servers
	impls   []target // ours, go-ethereum, then the broadcast set's bare fan-outs with no JSON-RPC
	harness string
}

// NewWebSocket decides what serves ours (the Caddy of e, when it answers
// the upgrade) and starts the servers the sets share. Close stops them.
func NewWebSocket(ctx context.Context, e *Env) (*WebSocket, error) {
	ws := &WebSocket{servers: servers{}}
	ours := target{name: "ours", role: schema.Ours}
	caddyErr := e.CaddyErr
	if e.Caddy != nil {
		caddyErr = e.Caddy.ServesWebSocket(ctx)
	}
	if caddyErr == nil {
		ours.label, ours.start = "ours (jsonrpc in Caddy)", startCaddy(e, false)
		ws.servers["ours"] = &server{"", e.Caddy.WS, e.Caddy.Proc, func() {}}
		ws.harness = "ours: bin/caddy's jsonrpc handler with Caddyfile.bench, over ws:// on its cleartext loopback site"
	} else {
		ours.label, ours.start = "ours (wsconn + rpccore)", startChild("ours")
		ws.harness = "ours: " + wsconnChild + ", because bin/caddy did not answer the upgrade (" + caddyErr.Error() + ")"
	}
	ws.harness += "; go-ethereum: rpc.Server.WebsocketHandler in a child process, over ws:// on loopback. " +
		"The client is bench's own lean WebSocket client in the harness process, sharing the machine"
	ws.impls = []target{ours,
		{name: "geth", label: "go-ethereum rpc", role: schema.Peer, rename: inprocess.GethRename, start: startChild("geth")},
		{name: "fanout", role: schema.Ceiling, start: startChild("fanout"), label: "bare fan-out, no JSON-RPC"},
		{name: "fanout_parallel", role: schema.Ceiling, start: startChild("fanout_parallel"),
			label: "bare fan-out over wsconn, no JSON-RPC, one writing goroutine per processor"},
	}
	if err := ws.start(ctx, "websocket", ws.impls...); err != nil {
		return nil, err
	}
	return ws, nil
}

func callRequest(method, params string, id int) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(id) + `}`)
}

// pipeCell is one connection count and depth.
type pipeCell struct{ conns, depth int }

func (c pipeCell) x() string {
	return fmt.Sprintf("%s × %d in flight", Count(c.conns, "conn", "conns"), c.depth)
}

// String is the cell in short: 4×256.
func (c pipeCell) String() string { return fmt.Sprintf("%d×%d", c.conns, c.depth) }

func pipeCells(p Profile) []pipeCell {
	var cells []pipeCell
	for _, n := range p.WSConns {
		for _, d := range p.WSDepths {
			cells = append(cells, pipeCell{n, d})
		}
	}
	return cells
}

func names[T any](cells []T, x func(T) string) []string {
	var xs []string
	for _, c := range cells {
		xs = append(xs, x(c))
	}
	return xs
}

const pipelined = "each connection keeps its number of calls in flight: a call is written as soon as an answer " +
	"comes back, and the calls written together go out in one network write; every answer is checked"

func pipeSet(id, group, title, harness, note string) schema.Set {
	return newSet(id, group, title, harness, note,
		schema.Metric{Name: "rpc_per_s", Unit: "calls per second", Better: schema.Higher, Log: true},
		"connections × calls in flight on each")
}

// Pipelined measures the five requests cycled over WebSocket, calls in flight on each connection.
func (ws *WebSocket) Pipelined(ctx context.Context, e *Env) schema.Set {
	s := pipeSet("ws_pipelined", "websocket", "WebSocket: pipelined calls per second, the five requests cycled", ws.harness,
		pipelined)
	var targets []target
	for _, impl := range ws.impls[:2] {
		reqs, expect := msgload.Workload(impl.rename)
		targets = append(targets, pipeTo(impl.name, impl.label, impl.role, "", ws.servers[impl.name].url, reqs, expect))
	}
	return measurePipes(ctx, e, s, pipeCells(e.Profile), targets, 1)
}

func broadcastX(n int) string { return Count(n, "subscriber", "subscribers") }

// broadcastShares is the broadcast set's rounds and each session's warm-up and timed messages.
func broadcastShares(p Profile) (rounds, warmup, runs int) {
	rounds = max(1, p.BroadcastRounds)
	return rounds, max(1, p.BroadcastWarmup), max(1, (p.BroadcastRuns+rounds-1)/rounds)
}

// Broadcast times messages published one at a time until the last of n
// subscribers has each, for every n of the profile, as the note says.
func (ws *WebSocket) Broadcast(ctx context.Context, e *Env) schema.Set {
	s := newSet("ws_broadcast", "websocket", "WebSocket: broadcast, ms from publish until the last subscriber has the message",
		ws.harness, "one connection per subscriber and one more that publishes; the clock starts before the publish call "+
			"is written and stops when the last subscriber has read its notification; each timed message is a run. "+
			"The series take turns: each round opens a session of every series in turn on fresh connections, "+
			"publishes its warm-up and then its share of the timed messages, and closes it; the order turns by one "+
			"series each round, so that every series meets the same phases of a shared machine. "+
			"The bare fan-out is a server with no JSON-RPC at all that writes one pre-encoded notification to each "+
			"connection in turn from the publisher's goroutine: it shows what delivery itself costs here, where "+
			"every subscriber costs a write on the server and a read in the client, on the same two cores; the "+
			"parallel bare fan-out shares those writes between one goroutine per processor, each writing its "+
			"share of the subscribers over package wsconn (the framing and writes of ours), from a server "+
			"process of its own as ours and go-ethereum are: the least a server can do for a delivery here. "+
			"The write system calls alone are the harness writing a notification-sized message (100 bytes) to as "+
			"many loopback TCP connections in turn, nobody reading: the least a write to each can cost here. "+
			"Writes and reads are the same writes shared between one goroutine per processor, with a goroutine of "+
			"the harness reading each connection, the clock stopping when the last has the message: the least a "+
			"delivery to each subscriber can cost on these two cores, the readers' share included",
		schema.Metric{Name: "ms", Unit: "ms until the last subscriber has it", Better: schema.Lower, Log: true},
		"subscribers")
	rounds, warmup, timed := broadcastShares(e.Profile)
	sizes := e.Profile.BroadcastSizes
	s.Cells = names(sizes, broadcastX)
	session := func(open func(n int) (msgload.Broadcaster, error)) func(int, func(string, ...float64)) error {
		return func(i int, add func(string, ...float64)) error {
			b, err := open(sizes[i])
			if err != nil {
				return err
			}
			defer b.Close()
			times, err := msgload.Times(ctx, b, warmup, timed)
			add("ms", millis(times)...)
			return err
		}
	}
	var targets []target
	for _, t := range ws.impls {
		url := ws.servers[t.name].url
		t.work = func(i int) int { return broadcastStepWork(e.Profile, sizes[i]) }
		t.measure = session(func(n int) (msgload.Broadcaster, error) {
			return msgload.OpenBroadcast(ctx, chat([]string{url}, []string{url}, n))
		})
		targets = append(targets, t)
	}
	writes := func(name, label string, read bool) target {
		return target{name: name, label: label, role: schema.Ceiling,
			work:    func(i int) int { return broadcastStepWork(e.Profile, sizes[i]) / 5 },
			measure: session(func(n int) (msgload.Broadcaster, error) { return msgload.OpenWrites(n, notificationSize, read) })}
	}
	targets = append(targets, writes("writes", "write system calls alone", false),
		writes("writes_read", "writes and reads, no WebSocket", true))
	for _, t := range targets {
		s.Series = append(s.Series, t.series("ms", "ms"))
	}
	if err := e.turns(&s, rounds, true, targets); err != nil {
		return failed(s, err)
	}
	for _, c := range [][2]string{{"ours", "geth"}, {"ours", "fanout"}, {"ours", "fanout_parallel"},
		{"fanout_parallel", "geth"}, {"ours", "writes"}, {"ours", "writes_read"}} {
		s.Compare(c[0], c[1])
	}
	return s
}

// chat is the demo's chat: n subscribers spread over subs, a publisher on each of pubs.
func chat(subs, pubs []string, n int) msgload.BroadcastConfig {
	return msgload.BroadcastConfig{SubscriberURLs: subs, PublisherURLs: pubs, Subscribers: n,
		Subscribe: callRequest("demo_subscribe", `["chat"]`, 1), Notification: "demo_subscription",
		Publish: func(id int, text string) []byte {
			return callRequest("demo_publish", `["chat",`+strconv.Quote(text)+`]`, id)
		}}
}

// notificationSize is the bytes of the writes alone: about a chat notification's.
const notificationSize = 100
