package sets

// memory.go measures the server's memory per idle WebSocket connection.

import (
	"context"
	"fmt"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

// memoryX names the cell of n idle connections.
func memoryX(n int) string { return plural(n, "idle connection", "idle connections") }

// MemoryWork is the work Memory reports, in estimated milliseconds.
func MemoryWork(p Profile) int { return p.Runs * 2 * memoryStepWork(p) }

// memoryStepWork is the estimated milliseconds of one memory run: starting
// a server, opening the connections and letting them settle.
func memoryStepWork(p Profile) int { return 400 + p.IdleConns/3 + ms(p.IdleSettle)*3/2 }

// warmConns is the number of connections opened and closed on a fresh
// server before its memory is first read.
const warmConns = 100

// idleCount is how many idle connections a memory set opens: n, or fewer
// under the open-files limit (0 for unknown), with a note saying so.
func idleCount(n int, openFiles uint64) (int, string) {
	if limit := int(openFiles) - 512; openFiles > 0 && n > limit {
		return limit, fmt.Sprintf("; %d connections asked, %d open at most under the open-files limit %d", n, limit, openFiles)
	}
	return n, ""
}

// Memory opens IdleConns connections to a freshly started server of each
// implementation, one call on each, and divides the growth of the server
// process's resident memory by their number; each run starts its own server.
func (ws *WebSocket) Memory(ctx context.Context, e *Env, openFiles uint64) schema.Set {
	n, note := idleCount(e.Profile.IdleConns, openFiles)
	x := memoryX(n)
	s := schema.Set{
		ID: "ws_memory", Group: "websocket", Status: schema.Measured,
		Title:   "WebSocket: server memory per idle connection, KiB",
		Harness: ws.harness,
		Note: fmt.Sprintf("each run starts a fresh server, opens and closes %d connections, reads its resident "+
			"memory (VmRSS in /proc), opens the connections (one add call on each, then idle), waits %v, reads it again: "+
			"the growth divided by the connections%s", warmConns, e.Profile.IdleSettle, note),
		Metric: schema.Metric{Name: "kib_per_conn", Unit: "KiB per idle connection", Better: schema.Lower},
		XLabel: "connections open",
		Cells:  []string{x},
	}
	names := make([]memorySeries, len(ws.impls))
	for i, impl := range ws.impls {
		names[i] = memorySeries{impl.name, impl.label, impl.role}
	}
	return runMemory(e, s, "WebSocket", x, names, func(i int) (float64, float64, error) {
		return idleMemory(ctx, ws.impls[i], n, e.Profile.IdleSettle)
	})
}

// memorySeries names one implementation of a memory set.
type memorySeries struct{ name, label, role string }

// runMemory adds the series of each implementation to s and fills them:
// every run measures each implementation once with measure (its index in
// impls), which returns KiB per connection and the resident MiB. ours is
// compared with geth.
func runMemory(e *Env, s schema.Set, what, x string, impls []memorySeries,
	measure func(i int) (kib, mib float64, err error)) schema.Set {
	for _, impl := range impls {
		s.Series = append(s.Series,
			series(impl.name, impl.label, impl.role, "kib_per_conn", "KiB per idle connection"),
			series(impl.name, impl.label, impl.role, "rss_mib", "server resident memory with the connections open, MiB"))
	}
	runs := collector{}
	for run := range e.Profile.Runs {
		for i, impl := range impls {
			e.Bar.Start(fmt.Sprintf("%s memory run %d/%d: %s, %s", what, run+1, e.Profile.Runs, x, impl.name))
			perConn, rss, err := measure(i)
			e.Bar.Done(memoryStepWork(e.Profile))
			if err != nil {
				return failed(s, fmt.Errorf("%s, %s: %w", x, impl.name, err))
			}
			runs.add(impl.name, "kib_per_conn", x, perConn)
			runs.add(impl.name, "rss_mib", x, rss)
		}
	}
	runs.fill(&s)
	s.Compare("ours", "geth")
	return s
}

// idleMemory runs one memory measurement on a fresh server of impl and
// returns KiB per connection and the resident MiB with them open.
func idleMemory(ctx context.Context, impl wsImpl, n int, settle time.Duration) (float64, float64, error) {
	srv, err := impl.start(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer srv.stop()
	reqs, expect := impl.requests()
	warm, err := wsload.OpenIdle(ctx, srv.url, warmConns, 16, reqs[0], expect)
	if err != nil {
		return 0, 0, err
	}
	wsload.CloseAll(warm)
	time.Sleep(settle / 2)
	before, err := srv.rss()
	if err != nil {
		return 0, 0, err
	}
	conns, err := wsload.OpenIdle(ctx, srv.url, n, 16, reqs[0], expect)
	if err != nil {
		return 0, 0, err
	}
	defer wsload.CloseAll(conns)
	time.Sleep(settle)
	after, err := srv.rss()
	if err != nil {
		return 0, 0, err
	}
	return float64(after-before) / float64(n) / 1024, float64(after) / (1 << 20), nil
}
