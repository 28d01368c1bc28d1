package sets

import (
	"context"
	"fmt"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

func memoryX(n int) string { return Count(n, "idle connection", "idle connections") }

// warmConns are opened and closed on a fresh server before its memory is first read.
const warmConns = 100

// Memory measures the server memory per idle WebSocket connection (memorySet).
func (ws *WebSocket) Memory(ctx context.Context, e *Env) schema.Set {
	return memorySet(ctx, e, schema.Set{ID: "ws_memory", Group: "websocket", Harness: ws.harness}, "WebSocket", "",
		ws.impls[:2])
}

// Memory measures the server memory per idle connection over TCP (memorySet).
func (st *Stream) Memory(ctx context.Context, e *Env) schema.Set {
	return memorySet(ctx, e, schema.Set{ID: "stream_memory", Group: "stream", Harness: streamHarness}, "TCP",
		" (bin/caddy with Caddyfile.bench, or go-ethereum's IPC server)", []target{
			{name: "ours", label: "ours over TCP (jsonrpc app in Caddy)", role: schema.Ours, start: startCaddy(e, true)},
			{name: "geth", label: "go-ethereum IPC (unix socket)", role: schema.Peer, rename: inprocess.GethRename,
				start: startChild("ipc")},
		})
}

// memorySet measures s over proto: each run starts a fresh server of each of impls (named in the
// note by servers) for idleMemory with IdleConns connections, or fewer under the open-files limit.
func memorySet(ctx context.Context, e *Env, s schema.Set, proto, servers string, impls []target) schema.Set {
	n, limited := e.Profile.IdleConns, ""
	if limit := int(e.OpenFiles) - 512; e.OpenFiles > 0 && n > limit {
		n, limited = limit, fmt.Sprintf("; %d connections asked, %d open at most under the open-files limit %d",
			n, limit, e.OpenFiles)
	}
	s.Status, s.Title = schema.Measured, proto+": server memory per idle connection, KiB"
	s.Note = fmt.Sprintf("each run starts a fresh server%s, opens and closes %d connections, reads its resident "+
		"memory (VmRSS in /proc), opens the connections (one add call on each, then idle), waits %v, reads it again: "+
		"the growth divided by the connections%s", servers, warmConns, e.Profile.IdleSettle, limited)
	s.Metric = schema.Metric{Name: "kib_per_conn", Unit: "KiB per idle connection", Better: schema.Lower}
	s.XLabel, s.Cells = "connections open", []string{memoryX(n)}
	var targets []target
	for _, t := range impls {
		t.work = fixed(memoryStepWork(e.Profile))
		t.measure = func(_ int, add func(string, ...float64)) error {
			perConn, rss, err := idleMemory(ctx, t, n, e.Profile.IdleSettle)
			add("kib_per_conn", perConn)
			add("rss_mib", rss)
			return err
		}
		targets = append(targets, t)
		s.Series = append(s.Series, t.series("kib_per_conn", "KiB per idle connection"),
			t.series("rss_mib", "server resident memory with the connections open, MiB"))
	}
	if err := e.turns(&s, e.Profile.Runs, false, targets); err != nil {
		return failed(s, err)
	}
	s.Compare("ours", "geth")
	return s
}

// idleMemory starts a server of t, opens and closes warmConns connections,
// reads its resident memory, opens n connections with a call on each,
// waits settle and returns the KiB per connection and resident MiB.
func idleMemory(ctx context.Context, t target, n int, settle time.Duration) (float64, float64, error) {
	reqs, expect := msgload.Workload(t.rename)
	srv, err := t.start(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer srv.stop()
	dial := dialer(srv.network, srv.url)
	open := func(n int) ([]pipeline.Conn, error) {
		return pipeline.Open(ctx, n, 16, func(ctx context.Context, _ int) (pipeline.Conn, error) {
			c, err := dial(ctx)
			if err == nil {
				if err = pipeline.Call(c, reqs[0], expect); err != nil {
					c.Close()
				}
			}
			return c, err
		})
	}
	warm, err := open(warmConns)
	if err != nil {
		return 0, 0, err
	}
	pipeline.CloseAll(warm)
	time.Sleep(settle / 2)
	before, err := srv.proc.RSS()
	if err != nil {
		return 0, 0, err
	}
	conns, err := open(n)
	if err != nil {
		return 0, 0, err
	}
	defer pipeline.CloseAll(conns)
	time.Sleep(settle)
	after, err := srv.proc.RSS()
	if err != nil {
		return 0, 0, err
	}
	return float64(after-before) / float64(n) / 1024, float64(after) / (1 << 20), nil
}
