package sets

import (
	"context"
	"fmt"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/clientload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// Clients holds the server the client set calls.
type Clients struct{ servers }

const clientHarness = "the server of every series: " + wsconnChild + ". The clients run in the harness process, " +
	"sharing the machine's cores with it: this module's rpcclient and go-ethereum's rpc.Client " + gethVersion +
	", each dialled with its defaults"

// gethVersion is the go-ethereum measured, as bench/go.mod requires it.
const gethVersion = "v1.17.10"

// NewClients starts the server of the client set. Close stops it.
func NewClients(ctx context.Context) (*Clients, error) {
	c := &Clients{servers{}}
	if err := c.start(ctx, "client", target{name: "ours", start: startChild("ours")}); err != nil {
		return nil, err
	}
	return c, nil
}

// clientMain is the cell the goals of the client set read.
var clientMain = pipeCell{4, 256}

// numericWindows times a client run's second phase, the numeric calls,
// after a tenth of a window for the first phase's to finish; at least 50 ms,
// which a loaded machine may spend without answering a call.
func numericWindows(p Profile) pipeline.Windows {
	d := max(p.WSWindow/10, 50*time.Millisecond)
	return pipeline.Windows{Warmup: d, Length: d, Count: 1}
}

// clientRunWindows times a client run's first phase: half a pipelined window.
func clientRunWindows(p Profile) pipeline.Windows {
	return pipeline.Windows{Warmup: p.WSWarmup, Length: p.WSWindow / 2, Count: 1}
}

// The client set's series; those marked numeric have the second phase (the
// floor's allocations are not a client's).
var clientSeries = []struct {
	name, label, role string
	numeric           bool
}{
	{clientload.Ours, "rpcclient, goroutines calling CallT", schema.Ours, true},
	{clientload.OursGo, "rpcclient, one goroutine per connection calling GoCall", schema.Baseline, true},
	{clientload.Geth, "go-ethereum rpc.Client, goroutines calling CallContext", schema.Peer, true},
	{clientload.Bare, "bare goroutine-per-call client: requests encoded beforehand, answers compared as bytes",
		schema.Ceiling, false},
}

const (
	allocsAll     = "allocs_per_call"
	allocsNumeric = "allocs_per_numeric_call"
)

// Pipelined measures each client's calls per second, the five cycled, and its allocations per call.
func (c *Clients) Pipelined(ctx context.Context, e *Env) schema.Set {
	n := numericWindows(e.Profile)
	s := pipeSet("client_pipelined", "client",
		"Go clients over WebSocket: calls per second against the same server, the five requests cycled", clientHarness,
		"each connection is one client with its number of calls in flight: ours, as many goroutines each "+
			"calling rpcclient.CallT in a loop (CallT[float64] for the four numeric results, CallT[string] for "+
			"StringMe); ours_go, one goroutine that starts that many calls with Client.GoCall (reusing the calls "+
			"that came back) and starts the next each time one comes back on its channel; go-ethereum, as many "+
			"goroutines each calling Client.CallContext. Every answer is decoded into a Go value and the value "+
			"checked. The bare client is the floor of calling from one goroutine per call here: as many "+
			"goroutines each queueing a request encoded beforehand with an id of its own and waiting on a "+
			"channel of its own, one goroutine writing what is queued in one network write and one reading, "+
			"finding the caller by the answer's id and comparing the result's bytes; nothing encoded, decoded "+
			"or looked up in a table per call, what is left being the framing, the system calls and the park "+
			"and wake of the caller, which any client called this way pays on these two cores. Each run is a "+
			"session of its own on fresh connections, the clients taking turns run by run, so that each meets "+
			"the same phases of the machine. Allocations per call are the harness process's "+
			"runtime.MemStats.Mallocs over the timed window divided by the calls answered in it: the server is "+
			"another process, so they are the client's, with what the harness adds per call (a shared atomic "+
			"counter and a comparison of the value, which allocate nothing) and a few per window (its timer). "+
			fmt.Sprintf("After the window of the five, the same connections make only the four numeric calls, "+
				"and after %v, a window of %v gives the allocations per call with a numeric result", n.Warmup, n.Length))
	for _, m := range [][2]string{{"rpc_per_s", "calls per second"},
		{allocsAll, "allocations per call in the client's process, the five cycled"},
		{allocsNumeric, "allocations per call in the client's process, the four numeric calls cycled"}} {
		for _, r := range clientSeries {
			if r.numeric || m[0] != allocsNumeric {
				s.Series = append(s.Series, series(r.name, r.label, r.role, m[0], m[1]))
			}
		}
	}
	calls, err := clientload.Workload()
	if err != nil {
		return failed(s, err)
	}
	cells, w := e.Profile.ClientCells, clientRunWindows(e.Profile)
	s.Cells = names(cells, pipeCell.x)
	var targets []target
	for _, r := range clientSeries {
		cfg := clientload.Config{URL: c.servers["ours"].url, Client: r.name, Calls: calls, Windows: w}
		if r.numeric {
			cfg.Numeric = n
		}
		targets = append(targets, target{name: r.name, work: fixed(clientRunWork(e.Profile, r.numeric)),
			measure: func(i int, add func(string, ...float64)) error {
				cfg.Conns, cfg.Depth = cells[i].conns, cells[i].depth
				res, err := clientload.Run(ctx, cfg)
				for _, w := range res.All {
					add("rpc_per_s", w.Rate)
					add(allocsAll, w.Allocs)
				}
				for _, w := range res.Numeric {
					add(allocsNumeric, w.Allocs)
				}
				return err
			}})
	}
	if err := e.turns(&s, e.Profile.Runs, false, targets); err != nil {
		return failed(s, err)
	}
	for _, c := range [][2]string{{clientload.Ours, clientload.OursGo}, {clientload.Ours, clientload.Geth},
		{clientload.OursGo, clientload.Geth}, {clientload.Bare, clientload.Geth}, {clientload.Ours, clientload.Bare}} {
		s.Compare(c[0], c[1])
	}
	return s
}
