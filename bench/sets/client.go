package sets

// client.go measures Go clients side by side against the same server:
// rpcclient from goroutines (CallT) and from one goroutine per connection
// (Go), and go-ethereum's rpc.Client, over WebSocket to ours.

import (
	"context"
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/clientload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsserve"
)

// Clients holds the server the client set calls.
type Clients struct {
	server  *wsserve.Server
	harness string
}

// clientHarness says what serves the client set and what calls it.
const clientHarness = "the server of every series: package wsconn serving rpccore with the demo service (the code " +
	"behind the jsonrpc handler's WebSocket upgrade) in a child process of the harness, over ws:// on loopback. " +
	"The clients run in the harness process, sharing the machine's cores with it: this module's rpcclient and " +
	"go-ethereum's rpc.Client " + gethVersion + ", each dialled with its defaults"

// gethVersion is the go-ethereum measured, as bench/go.mod requires it.
const gethVersion = "v1.17.10"

// NewClients starts the server of the client set. Close stops it.
func NewClients(ctx context.Context) (*Clients, error) {
	s, err := wsserve.Start(ctx, "ours")
	if err != nil {
		return nil, fmt.Errorf("client: starting the server: %w", err)
	}
	return &Clients{server: s, harness: clientHarness}, nil
}

// Close stops the server.
func (c *Clients) Close() { c.server.Stop() }

// clientMain is the cell the goals of the client set read: 4
// connections, 256 calls in flight on each.
var clientMain = pipeCell{4, 256}

// clientCellsOf are the cells of the client set in both profiles: 1 and
// 4 connections by 1 and 256 calls in flight.
func clientCellsOf() []pipeCell { return []pipeCell{{1, 1}, {1, 256}, {4, 1}, {4, 256}} }

// numericWindows times the second phase of each client cell: the numeric
// calls only, for their allocations, after a tenth of a window for the
// calls of the first phase to finish.
func numericWindows(p Profile) pipeline.Windows {
	return pipeline.Windows{Warmup: p.WSWindow / 10, Length: p.WSWindow / 4, Count: p.Runs}
}

// clientStepWork is the estimated milliseconds of one client cell of one
// series.
func clientStepWork(p Profile) int {
	n := numericWindows(p)
	return ms(p.WSWarmup) + p.Runs*ms(p.WSWindow) + ms(n.Warmup) + n.Count*ms(n.Length) + 100
}

// ClientWork is the work the client set reports, in estimated
// milliseconds.
func ClientWork(p Profile) int {
	return len(p.ClientCells) * len(clientload.Clients) * clientStepWork(p)
}

// The client set's series.
var clientSeries = []struct{ name, label, role string }{
	{clientload.Ours, "rpcclient, goroutines calling CallT", schema.Ours},
	{clientload.OursGo, "rpcclient, one goroutine per connection calling GoCall", schema.Baseline},
	{clientload.Geth, "go-ethereum rpc.Client, goroutines calling CallContext", schema.Peer},
}

// The client set's secondary metrics.
const (
	allocsAll     = "allocs_per_call"
	allocsNumeric = "allocs_per_numeric_call"
)

// Pipelined measures the calls per second of each client, the five
// requests cycled, and the client's allocations per call.
func (c *Clients) Pipelined(ctx context.Context, e *Env) schema.Set {
	n := numericWindows(e.Profile)
	s := schema.Set{
		ID: "client_pipelined", Group: "client", Status: schema.Measured,
		Title:   "Go clients over WebSocket: calls per second against the same server, the five requests cycled",
		Harness: c.harness,
		Note: "each connection is one client with its number of calls in flight: ours, as many goroutines each " +
			"calling rpcclient.CallT in a loop (CallT[float64] for the four numeric results, CallT[string] for " +
			"StringMe); ours_go, one goroutine that starts that many calls with Client.GoCall (reusing the calls that came back) and starts the next " +
			"each time one comes back on its channel; go-ethereum, as many goroutines each calling " +
			"Client.CallContext. Every answer is decoded into a Go value and the value checked. Allocations per " +
			"call are the harness process's runtime.MemStats.Mallocs over each timed window divided by the " +
			"calls answered in it: the server is another process, so they are the client's, with what the " +
			"harness adds per call (a shared atomic counter and a comparison of the value, which allocate " +
			"nothing) and a few per window (its timer). After the windows of the five, the same connections " +
			fmt.Sprintf("make only the four numeric calls, and after %v, %d windows of %v give the allocations "+
				"per call with a numeric result", n.Warmup, n.Count, n.Length),
		Metric: schema.Metric{Name: "rpc_per_s", Unit: "calls per second", Better: schema.Higher, Log: true},
		XLabel: "connections × calls in flight on each",
	}
	for _, r := range clientSeries {
		s.Series = append(s.Series, series(r.name, r.label, r.role, "rpc_per_s", "calls per second"))
	}
	for _, r := range clientSeries {
		s.Series = append(s.Series, series(r.name, r.label, r.role, allocsAll,
			"allocations per call in the client's process, the five cycled"))
	}
	for _, r := range clientSeries {
		s.Series = append(s.Series, series(r.name, r.label, r.role, allocsNumeric,
			"allocations per call in the client's process, the four numeric calls cycled"))
	}
	calls, err := clientload.Workload()
	if err != nil {
		return failed(s, err)
	}
	runs := collector{}
	for _, cell := range e.Profile.ClientCells {
		s.Cells = append(s.Cells, cell.x())
		for _, r := range clientSeries {
			e.Bar.Start(fmt.Sprintf("Go clients: %s, %s", cell.x(), r.name))
			res, err := clientload.Run(ctx, clientload.Config{URL: c.server.URL, Client: r.name,
				Conns: cell.conns, Depth: cell.depth, Calls: calls, Windows: windows(e.Profile), Numeric: n})
			e.Bar.Done(clientStepWork(e.Profile))
			if err != nil {
				return failed(s, fmt.Errorf("%s, %s: %w", cell.x(), r.name, err))
			}
			for _, w := range res.All {
				runs.add(r.name, "rpc_per_s", cell.x(), w.Rate)
				runs.add(r.name, allocsAll, cell.x(), w.Allocs)
			}
			for _, w := range res.Numeric {
				runs.add(r.name, allocsNumeric, cell.x(), w.Allocs)
			}
		}
	}
	runs.fill(&s)
	s.Compare(clientload.Ours, clientload.OursGo)
	s.Compare(clientload.Ours, clientload.Geth)
	s.Compare(clientload.OursGo, clientload.Geth)
	return s
}
