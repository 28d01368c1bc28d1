package sets

import (
	"context"
	"fmt"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/grpcpeer"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
)

// Stream holds the servers the stream sets share: the group's Caddy and the children (ipc: go-ethereum).
type Stream struct {
	servers
	caddy *caddyproc.Caddy
}

const streamHarness = "ours: bin/caddy's jsonrpc app (the jsonrpc global option of Caddyfile.bench) on a loopback TCP " +
	"port and a unix socket, and its jsonrpc handler over ws:// for reference; go-ethereum: rpc.Server.ServeListener " +
	"on a unix socket (its IPC server) in a child process; gRPC-Go: a hand-written grpc.ServiceDesc with a " +
	"binary codec (no protoc) in a child process; the bare server: a child process with no JSON-RPC at all that " +
	"writes pre-encoded bytes. The client is bench's own (msgload.StreamConn: requests written back to back, each followed " +
	"by a newline, answers read line by line, every one checked) in the harness process, sharing the machine's cores"

// NewStream checks that e's Caddy serves the streams and WebSocket and starts the children; Close stops them.
func NewStream(ctx context.Context, e *Env) (*Stream, error) {
	if e.Caddy == nil {
		return nil, e.CaddyErr
	}
	if err := e.Caddy.ServesStreams(ctx); err != nil {
		return nil, err
	}
	if err := e.Caddy.ServesWebSocket(ctx); err != nil {
		return nil, fmt.Errorf("the WebSocket reference: %w", err)
	}
	st := &Stream{servers: servers{}, caddy: e.Caddy}
	err := st.start(ctx, "stream", target{name: "ipc", start: startChild("ipc")},
		target{name: "grpc", start: startChild("grpc")}, target{name: "bare", start: startChild("bare")})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// streamMain is the cell the goals of the stream sets read.
var streamMain = pipeCell{4, 256}

// pipeTo is the series that sends reqs, checked by expect, to addr on network (dialer).
func pipeTo(name, label, role, network, addr string, reqs [][]byte, expect msgload.Expect) target {
	dial := dialer(network, addr)
	return target{name: name, label: label, role: role,
		pipe: func(ctx context.Context, c pipeCell, w pipeline.Windows) ([]float64, error) {
			return pipeline.Run(ctx, pipeline.Config{Conns: c.conns, Depth: c.depth, Requests: reqs,
				Expect: expect.Prepare(), Windows: w}, dial)
		}}
}

// measurePipes measures every target on cells (s's, or named after cells)
// in sessions sessions each on fresh connections, each timed by its share
// of the profile's windows, and compares the first target with the others.
func measurePipes(ctx context.Context, e *Env, s schema.Set, cells []pipeCell, targets []target,
	sessions int) schema.Set {
	if len(s.Cells) == 0 {
		s.Cells = names(cells, pipeCell.x)
	}
	w := pipeline.Windows{Warmup: e.Profile.WSWarmup, Length: e.Profile.WSWindow, Count: e.Profile.Runs / sessions}
	for k, t := range targets {
		s.Series = append(s.Series, t.series(s.Metric.Name, s.Metric.Unit))
		targets[k].work = fixed(pipeWork(e.Profile, sessions))
		targets[k].measure = func(i int, add func(string, ...float64)) error {
			rates, err := t.pipe(ctx, cells[i], w)
			add(s.Metric.Name, rates...)
			return err
		}
	}
	if err := e.turns(&s, sessions, false, targets); err != nil {
		return failed(s, err)
	}
	for _, t := range targets[1:] {
		s.Compare(targets[0].name, t.name)
	}
	return s
}

// Pipelined measures the five requests cycled over TCP and a unix socket
// against go-ethereum's IPC server, the bare server and ours over WebSocket.
func (st *Stream) Pipelined(ctx context.Context, e *Env) schema.Set {
	s := pipeSet("stream_pipelined", "stream",
		"TCP and unix sockets: pipelined calls per second, the five requests cycled", streamHarness,
		pipelined+". The bare server answers each line with the pre-encoded answer of its id and does nothing "+
			"else: the floor of this machine for the client and the loopback, on the same cores. Ours over "+
			"WebSocket is the existing WebSocket load on the same Caddy, for reference")
	reqs, expect := msgload.Workload(nil)
	gethReqs, gethExpect := msgload.Workload(inprocess.GethRename)
	geth, bare := st.servers["ipc"], st.servers["bare"]
	targets := []target{
		pipeTo("ours", "ours over TCP (jsonrpc app in Caddy)", schema.Ours, "tcp", st.caddy.TCP, reqs, expect),
		pipeTo("ours_unix", "ours over a unix socket", schema.Baseline, "unix", st.caddy.Socket, reqs, expect),
		pipeTo("ours_ws", "ours over WebSocket", schema.Baseline, "", st.caddy.WS, reqs, expect),
		pipeTo("geth", "go-ethereum IPC (unix socket)", schema.Peer, geth.network, geth.url, gethReqs, gethExpect),
		pipeTo("bare", "bare server, no JSON-RPC (TCP)", schema.Ceiling, bare.network, bare.url, reqs, expect),
	}
	return measurePipes(ctx, e, s, e.Profile.StreamCells, targets, e.Profile.Runs)
}

// delayRequests are delay(0) calls named method, ids 1 to 5, and answers.
func delayRequests(method string) ([][]byte, msgload.Expect) {
	expect := msgload.Expect{}
	var reqs [][]byte
	for id := 1; id <= 5; id++ {
		reqs = append(reqs, callRequest(method, "[0]", id))
		expect[int64(id)] = "0"
	}
	return reqs, expect
}

// Blocking measures a method that waits on a timer, demo delay(0), against
// go-ethereum's bench_sleep(0).
func (st *Stream) Blocking(ctx context.Context, e *Env) schema.Set {
	s := pipeSet("stream_blocking", "stream", "TCP: pipelined calls of a method that waits, delay(0)", streamHarness,
		"delay is registered Blocking: the peer hands each call to a goroutine of its own (at most "+
			"max_in_flight at once per connection, 64 by default), where it waits on a 0 ms timer before it "+
			"answers. go-ethereum runs every call on a goroutine of its own anyway; its bench_sleep waits on a "+
			"timer the same way. The five requests cycled over the same TCP listener show what the hand-off costs")
	reqs, expect := delayRequests("delay")
	gethReqs, gethExpect := delayRequests("bench_sleep")
	fiveReqs, fiveExpect := msgload.Workload(nil)
	geth := st.servers["ipc"]
	targets := []target{
		pipeTo("ours", "ours, delay(0) over TCP", schema.Ours, "tcp", st.caddy.TCP, reqs, expect),
		pipeTo("geth", "go-ethereum IPC, bench_sleep(0)", schema.Peer, geth.network, geth.url, gethReqs, gethExpect),
		pipeTo("ours_five", "ours, the five requests (not blocking)", schema.Baseline, "tcp", st.caddy.TCP, fiveReqs, fiveExpect),
	}
	return measurePipes(ctx, e, s, []pipeCell{streamMain}, targets, e.Profile.Runs)
}

// GRPC measures ours over TCP against gRPC-Go, unary and streamed.
func (st *Stream) GRPC(ctx context.Context, e *Env) schema.Set {
	s := pipeSet("stream_grpc", "stream",
		"TCP: the five calls, ours against gRPC-Go (unary, and one bidirectional stream per connection)", streamHarness,
		"gRPC-Go "+grpcVersion+" serves the five calls as a hand-written grpc.ServiceDesc with a codec of "+
			"binary values (little-endian numbers, raw string bytes: cheaper than JSON, so gRPC pays only for its "+
			"transport); unary: as many goroutines per connection as calls in flight, each calling in a loop; "+
			"stream: one bidirectional stream per connection carrying calls (method, id, value) and answers in "+
			"order, with that many calls sent ahead. Every answer is checked")
	reqs, expect := msgload.Workload(nil)
	grpcTarget := func(name, label string, stream bool) target {
		return target{name: name, label: label, role: schema.Peer,
			pipe: func(ctx context.Context, c pipeCell, w pipeline.Windows) ([]float64, error) {
				return grpcpeer.Run(ctx, grpcpeer.Config{Addr: st.servers["grpc"].url, Conns: c.conns, Depth: c.depth,
					Stream: stream, Windows: w})
			}}
	}
	targets := []target{
		pipeTo("ours", "ours over TCP", schema.Ours, "tcp", st.caddy.TCP, reqs, expect),
		grpcTarget("grpc_unary", "gRPC-Go, unary calls", false),
		grpcTarget("grpc_stream", "gRPC-Go, one stream per connection", true),
	}
	return measurePipes(ctx, e, s, []pipeCell{streamMain}, targets, e.Profile.Runs)
}

// grpcVersion is the gRPC-Go measured, as bench/go.mod requires it.
const grpcVersion = "v1.85.0"

// floodX is the one cell of the streaming set.
const floodX = "1 subscription, 1 client"

// Streaming measures the notifications per second of
// demo_subscribe("flood") to one client, over TCP and WebSocket, against
// the bare server.
func (st *Stream) Streaming(ctx context.Context, e *Env) schema.Set {
	s := newSet("stream_flood", "stream", "Streaming: notifications per second from one subscription to one client",
		streamHarness, "the client subscribes to demo_subscribe(\"flood\", "+strconv.Itoa(demo.MaxFlood)+"), which sends "+
			"1, 2, 3, ... as fast as the connection takes them, waiting for room in the send queue rather than "+
			"dropping; the client reads every notification, checks its envelope and subscription id, and that its "+
			"number is the one after the last (no gap, no repeat). The bare server answers the subscribe, then "+
			"writes the same notifications pre-encoded, as fast as the connection takes them, with no JSON-RPC: "+
			"the floor of the client and the loopback on the same cores",
		schema.Metric{Name: "items_per_s", Unit: "notifications per second", Better: schema.Higher}, "subscriptions")
	s.Cells = []string{floodX}
	// flood floods addr on network, or the ws:// URL addr with no network.
	flood := func(name, label, role, network, addr string) target {
		return target{name: name, label: label, role: role,
			pipe: func(ctx context.Context, _ pipeCell, w pipeline.Windows) ([]float64, error) {
				cfg := msgload.FloodConfig{Notification: "demo_subscription", Windows: w,
					Subscribe: callRequest("demo_subscribe", `["flood",`+strconv.Itoa(demo.MaxFlood)+`]`, 1)}
				return msgload.Flood(ctx, network, addr, cfg)
			}}
	}
	bare := st.servers["bare"]
	targets := []target{flood("ours", "ours over TCP", schema.Ours, "tcp", st.caddy.TCP),
		flood("ours_ws", "ours over WebSocket", schema.Baseline, "", st.caddy.WS),
		flood("bare", "bare server, no JSON-RPC (TCP)", schema.Ceiling, bare.network, bare.url)}
	return measurePipes(ctx, e, s, []pipeCell{{1, 1}}, targets, 1)
}
