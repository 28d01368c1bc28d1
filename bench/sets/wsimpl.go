package sets

import (
	"context"
	"fmt"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

// server is a running server under test.
type server struct {
	url  string // a WebSocket server's ws:// URL
	dial func(ctx context.Context) (pipeline.Conn, error)
	rss  func() (int64, error)
	stop func()
}

func wsServer(url string, rss func() (int64, error), stop func()) *server {
	return &server{url: url, dial: wsload.Dialer(url), rss: rss, stop: stop}
}

// serverImpl is one implementation under test.
type serverImpl struct {
	name, label, role string
	rename            func(string) string
	// start starts a fresh server of its own.
	start func(ctx context.Context) (*server, error)
}

// WebSocket holds the servers the WebSocket sets share.
type WebSocket struct {
	impls   []serverImpl
	fanouts []serverImpl // the broadcast set's bare fan-outs, no JSON-RPC
	shared  map[string]*server
	harness string
}

// NewWebSocket decides what serves ours (the Caddy of e, when it answers
// the upgrade) and starts the servers the pipelined and broadcast sets
// share. Close stops them.
func NewWebSocket(ctx context.Context, e *Env) (*WebSocket, error) {
	ws := &WebSocket{shared: map[string]*server{}}
	child := func(impl string) func(context.Context) (*server, error) {
		return func(ctx context.Context) (*server, error) {
			s, err := childserve.Start(ctx, impl)
			if err != nil {
				return nil, err
			}
			return wsServer(s.Addr, s.RSS, s.Stop), nil
		}
	}
	ours := serverImpl{name: "ours", role: schema.Ours}
	caddyErr := e.CaddyErr
	if e.Caddy != nil {
		caddyErr = e.Caddy.ServesWebSocket(ctx)
	}
	if caddyErr == nil {
		ours.label = "ours (jsonrpc in Caddy)"
		ours.start = func(ctx context.Context) (*server, error) {
			c, err := caddyproc.Start(ctx, e.CaddyBin, e.CaddyConfig)
			if err != nil {
				return nil, err
			}
			return wsServer(c.WS, c.Proc.RSS, c.Stop), nil
		}
		ws.shared["ours"] = wsServer(e.Caddy.WS, e.Caddy.Proc.RSS, func() {})
		ws.harness = "ours: bin/caddy's jsonrpc handler with Caddyfile.bench, over ws:// on its cleartext loopback site"
	} else {
		ours.label = "ours (wsconn + rpccore)"
		ours.start = child("ours")
		ws.harness = "ours: package wsconn serving rpccore with the demo service (the code behind the jsonrpc " +
			"handler's WebSocket upgrade) in a child process of the harness, over ws:// on loopback, because bin/caddy " +
			"did not answer the upgrade (" + caddyErr.Error() + ")"
	}
	geth := serverImpl{name: "geth", label: "go-ethereum rpc", role: schema.Peer, rename: inprocess.GethRename, start: child("geth")}
	ws.harness += "; go-ethereum: rpc.Server.WebsocketHandler in a child process, over ws:// on loopback. " +
		"The client is bench's own lean WebSocket client in the harness process, sharing the machine"
	ws.impls = []serverImpl{ours, geth}
	ws.fanouts = []serverImpl{
		{name: "fanout", role: schema.Ceiling, start: child("fanout"), label: "bare fan-out, no JSON-RPC"},
		{name: "fanout_parallel", role: schema.Ceiling, start: child("fanout_parallel"),
			label: "bare fan-out over wsconn, no JSON-RPC, one writing goroutine per processor"},
	}
	for _, impl := range append(ws.impls[:len(ws.impls):len(ws.impls)], ws.fanouts...) {
		if ws.shared[impl.name] != nil {
			continue
		}
		s, err := impl.start(ctx)
		if err != nil {
			ws.Close()
			return nil, fmt.Errorf("websocket: starting %s: %w", impl.name, err)
		}
		ws.shared[impl.name] = s
	}
	return ws, nil
}

// Close stops the shared servers.
func (ws *WebSocket) Close() {
	for _, s := range ws.shared {
		s.stop()
	}
}

// callRequest is a single call of the given id as impl names it.
func callRequest(method, params string, id int) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(id) + `}`)
}
