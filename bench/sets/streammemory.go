package sets

// streammemory.go measures the server's memory per idle stream connection.

import (
	"context"
	"fmt"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/streamload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/streamserve"
)

// streamServer is a freshly started server of the memory set.
type streamServer struct {
	network, addr string
	rss           func() (int64, error)
	stop          func()
}

// Memory opens IdleConns connections to a freshly started server, one add
// call on each, and divides the growth of the server process's resident
// memory by their number: ours is a fresh bin/caddy over TCP, go-ethereum a
// fresh IPC server over its unix socket.
func (st *Stream) Memory(ctx context.Context, e *Env, openFiles uint64) schema.Set {
	n, note := idleCount(e.Profile.IdleConns, openFiles)
	x := memoryX(n)
	s := schema.Set{
		ID: "stream_memory", Group: "stream", Status: schema.Measured,
		Title:   "TCP: server memory per idle connection, KiB",
		Harness: st.harness,
		Note: fmt.Sprintf("each run starts a fresh server (bin/caddy with Caddyfile.bench, or go-ethereum's IPC "+
			"server), opens and closes %d connections, reads its resident memory (VmRSS in /proc), opens the "+
			"connections (one add call on each, then idle), waits %v, reads it again: the growth divided by the "+
			"connections%s", warmConns, e.Profile.IdleSettle, note),
		Metric: schema.Metric{Name: "kib_per_conn", Unit: "KiB per idle connection", Better: schema.Lower},
		XLabel: "connections open",
		Cells:  []string{x},
	}
	impls := []struct {
		name, label, role string
		rename            func(string) string
		start             func(context.Context) (*streamServer, error)
	}{
		{"ours", "ours over TCP (jsonrpc app in Caddy)", schema.Ours, nil, func(ctx context.Context) (*streamServer, error) {
			c, err := caddyproc.Start(ctx, e.CaddyBin, e.CaddyConfig)
			if err != nil {
				return nil, err
			}
			return &streamServer{network: "tcp", addr: c.TCP, rss: c.Proc.RSS, stop: c.Stop}, nil
		}},
		{"geth", "go-ethereum IPC (unix socket)", schema.Peer, inprocess.GethRename, func(ctx context.Context) (*streamServer, error) {
			g, err := streamserve.Start(ctx, "geth")
			if err != nil {
				return nil, err
			}
			return &streamServer{network: g.Network, addr: g.Addr, rss: g.Proc.RSS, stop: g.Stop}, nil
		}},
	}
	names := make([]memorySeries, len(impls))
	for i, impl := range impls {
		names[i] = memorySeries{impl.name, impl.label, impl.role}
	}
	return runMemory(e, s, "stream", x, names, func(i int) (float64, float64, error) {
		return idleStreamMemory(ctx, impls[i].start, impls[i].rename, n, e.Profile.IdleSettle)
	})
}

// idleStreamMemory runs one memory measurement on a server from start and
// returns KiB per connection and the resident MiB with them open.
func idleStreamMemory(ctx context.Context, start func(context.Context) (*streamServer, error),
	rename func(string) string, n int, settle time.Duration) (float64, float64, error) {
	srv, err := start(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer srv.stop()
	reqs, expect := workload(rename)
	warm, err := streamload.OpenIdle(ctx, srv.network, srv.addr, warmConns, 16, reqs[0], expect)
	if err != nil {
		return 0, 0, err
	}
	streamload.CloseAll(warm)
	time.Sleep(settle / 2)
	before, err := srv.rss()
	if err != nil {
		return 0, 0, err
	}
	conns, err := streamload.OpenIdle(ctx, srv.network, srv.addr, n, 16, reqs[0], expect)
	if err != nil {
		return 0, 0, err
	}
	defer streamload.CloseAll(conns)
	time.Sleep(settle)
	after, err := srv.rss()
	if err != nil {
		return 0, 0, err
	}
	return float64(after-before) / float64(n) / 1024, float64(after) / (1 << 20), nil
}
