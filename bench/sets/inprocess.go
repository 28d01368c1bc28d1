package sets

import (
	"context"
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// inCase is one cell of the in-process set.
type inCase struct {
	x          string
	docs       func(rename func(string) string) [][]byte
	calls      int // JSON-RPC calls per document
	goroutines int
}

// inCases are each request alone, the five cycled and a batch of 100, from 1 and 2 goroutines.
func inCases() []inCase {
	var cases []inCase
	for i, c := range inprocess.Workload {
		cases = append(cases, inCase{x: c.Method, calls: 1, goroutines: 1,
			docs: func(rename func(string) string) [][]byte { return inprocess.Requests(rename)[i : i+1] }})
	}
	cycled := func(rename func(string) string) [][]byte { return inprocess.Requests(rename) }
	batch := func(rename func(string) string) [][]byte {
		return [][]byte{inprocess.Batch(inprocess.BatchSize, rename)}
	}
	return append(cases,
		inCase{x: "five cycled", docs: cycled, calls: 1, goroutines: 1},
		inCase{x: "five cycled, 2 goroutines", docs: cycled, calls: 1, goroutines: 2},
		inCase{x: "batch of 100", docs: batch, calls: inprocess.BatchSize, goroutines: 1},
		inCase{x: "batch of 100, 2 goroutines", docs: batch, calls: inprocess.BatchSize, goroutines: 2},
	)
}

var inSeries = map[string]struct{ label, role string }{
	"ours":        {"ours (rpccore)", schema.Ours},
	"ours_traced": {"ours, a span per call (OpenTelemetry SDK, spans dropped)", schema.Baseline},
	"geth":        {"go-ethereum rpc", schema.Peer},
	"jrpc2":       {"jrpc2", schema.Peer},
	"stdjson":     {"encoding/json dispatcher", schema.Peer},
	"goccy":       {"goccy/go-json dispatcher", schema.Peer},
}

// InProcess measures every implementation on every case: a warm-up pass
// over all, then Runs passes, so that a busy phase of a shared machine
// falls on every implementation alike.
func InProcess(ctx context.Context, e *Env) schema.Set {
	impls, cases := inprocess.All(), inCases()
	s := newSet("inprocess", "inprocess", "In process: the five requests, ns per call",
		"every implementation called in this process with the raw request bytes (go-ethereum through its "+
			"ServeHTTP with an in-memory POST, jrpc2 over its channel.Direct); one caller per goroutine",
		"ns per call is wall time divided by the calls of all goroutines; a batch's figures are divided by "+
			"its 100 calls; bytes and allocations count the whole process during the run, as testing.B does",
		schema.Metric{Name: "ns_per_call", Unit: "ns per call", Better: schema.Lower, Log: true}, "request")
	s.Cells = names(cases, func(c inCase) string { return c.x })
	for _, impl := range impls {
		if err := inprocess.Verify(impl); err != nil {
			return failed(s, err)
		}
		t := target{name: impl.Name, label: inSeries[impl.Name].label, role: inSeries[impl.Name].role}
		s.Series = append(s.Series, t.series("ns_per_call", "ns per call"),
			t.series("bytes_per_call", "bytes allocated per call"), t.series("allocs_per_call", "allocations per call"))
	}
	runs := collector{}
	for pass := range 1 + e.Profile.Runs {
		for _, impl := range impls {
			for _, c := range cases {
				if err := ctx.Err(); err != nil {
					return failed(s, err)
				}
				d, what := e.Profile.InProcessTime, fmt.Sprintf("run %d/%d", pass, e.Profile.Runs)
				if pass == 0 {
					d, what = e.Profile.InProcessWarmup, "warm-up"
				}
				e.Bar.Start(fmt.Sprintf("in process, %s: %s %s", what, impl.Name, c.x))
				cost := inprocess.Measure(impl, c.docs(impl.Rename), c.calls, c.goroutines, d)
				e.Bar.Done(inStepWork(d))
				if pass == 0 {
					continue
				}
				runs.add(impl.Name, "ns_per_call", c.x, cost.NsPerCall)
				runs.add(impl.Name, "bytes_per_call", c.x, cost.BytesPerCall)
				runs.add(impl.Name, "allocs_per_call", c.x, cost.AllocsPerCall)
			}
		}
	}
	runs.fill(&s)
	for _, impl := range impls[1:] {
		s.Compare("ours", impl.Name)
	}
	return s
}
