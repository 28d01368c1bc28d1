package sets

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// httpTarget is one of the three things an HTTP cell measures.
type httpTarget struct {
	name, path   string
	body, expect []byte
	calls        int
}

// httpTargets are respond, one add call per POST, and a batch of 100.
func httpTargets() []httpTarget {
	var calls, answers []string
	for i := 1; i <= 100; i++ {
		calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":%d}`, i))
		answers = append(answers, fmt.Sprintf(`{"jsonrpc":"2.0","result":3,"id":%d}`, i))
	}
	batch, answer := "["+strings.Join(calls, ",")+"]", "["+strings.Join(answers, ",")+"]"
	return []httpTarget{
		{name: "respond", path: "/static", body: []byte(caddyproc.AddCall), expect: []byte(caddyproc.AddAnswer), calls: 1},
		{name: "ours", path: "/rpc", body: []byte(caddyproc.AddCall), expect: []byte(caddyproc.AddAnswer), calls: 1},
		{name: "ours_batch100", path: "/rpc", body: []byte(batch), expect: []byte(answer), calls: 100},
	}
}

// httpCell is one protocol and connection count.
type httpCell struct {
	h2    bool
	conns int
}

func (c httpCell) x() string {
	proto := "HTTP/1.1"
	if c.h2 {
		proto = "HTTP/2"
	}
	return proto + ", " + Count(c.conns, "conn", "conns")
}

func httpCells(p Profile) []httpCell {
	var cells []httpCell
	for _, h2 := range []bool{false, true} {
		for _, n := range p.HTTPConns {
			cells = append(cells, httpCell{h2: h2, conns: n})
		}
	}
	return cells
}

// HTTP measures respond, one call per POST and a batch of 100 per POST taking turns on the same
// connections (httpCell.measure): one call against respond, and the batch against one call.
func HTTP(ctx context.Context, e *Env) []schema.Set {
	const harness = "bin/caddy with Caddyfile.bench (HTTPS with tls internal on 127.0.0.1; jsonrpc on /rpc, respond on " +
		"/static serving the same bytes); bench's load generator in Go, closed loop, one request in flight per " +
		"keep-alive connection, every answer checked byte for byte; client and server share the machine"
	const turns = "The three targets take turns on the same connections, opened for each cell: after a warm-up of " +
		"each, every round times a slice of each in the order respond, one call per POST, the batch, the batch, one " +
		"call per POST, respond, so that each slice of one call per POST has a slice of respond and one of the " +
		"batch beside it, and the n-th slices of two targets make a pair. Each slice is a run; a comparison's low " +
		"and high are the lowest and highest ratio of those pairs, and the goals read the median of the pairs' " +
		"ratios, which a phase of the shared machine longer than two slices moves less than the medians of each."
	single := newSet("http", "http", "HTTPS: one add call per POST, jsonrpc against Caddy's static respond", harness,
		"respond answers the same bytes with no JSON-RPC: it is the ceiling of a Caddy handler on this machine. "+turns,
		schema.Metric{Name: "rpc_per_s", Unit: "calls per second", Better: schema.Higher}, "protocol, client connections")
	single.Series = []schema.Series{
		series("ours", "jsonrpc, 1 call per POST", schema.Ours, "rpc_per_s", "calls per second"),
		series("respond", "respond, same answer", schema.Ceiling, "rpc_per_s", "requests per second"),
		series("ours", "jsonrpc, 1 call per POST", schema.Ours, "p99_ms", "p99 latency, ms"),
		series("respond", "respond, same answer", schema.Ceiling, "p99_ms", "p99 latency, ms"),
	}
	cells := httpCells(e.Profile)
	single.Cells = names(cells, httpCell.x)
	batch := single
	batch.ID, batch.Note = "http_batch", turns
	batch.Title = "HTTPS: a batch of 100 add calls per POST against one call per POST"
	batch.Metric.Log = true
	batch.Series = []schema.Series{
		series("ours_batch100", "jsonrpc, batch of 100 per POST", schema.Ours, "rpc_per_s", "calls per second"),
		series("ours", "jsonrpc, 1 call per POST", schema.Baseline, "rpc_per_s", "calls per second"),
		series("ours_batch100", "jsonrpc, batch of 100 per POST", schema.Ours, "p99_ms", "p99 latency per POST, ms"),
	}
	if e.Caddy == nil {
		return []schema.Set{failed(single, e.CaddyErr), failed(batch, e.CaddyErr)}
	}
	runs := collector{}
	for _, c := range cells {
		if err := c.measure(ctx, e, runs); err != nil {
			return []schema.Set{failed(single, err), failed(batch, err)}
		}
	}
	runs.fill(&single)
	runs.fill(&batch)
	single.Compare("ours", "respond")
	batch.Compare("ours_batch100", "ours")
	var spread []string
	for _, x := range single.Cells {
		if _, text, ok := pairedRatio(&single, "ours", "respond", x); ok {
			spread = append(spread, text)
		}
	}
	single.Note += " The ratios of ours to respond, median of the pairs (their count, lowest to highest): " +
		strings.Join(spread, "; ") + "."
	return []schema.Set{single, batch}
}

// measure times rounds of slices of every target on c's connections: in order, then in reverse.
func (c httpCell) measure(ctx context.Context, e *Env, runs collector) error {
	p := e.Profile
	clients, err := load.Open(load.Config{URL: e.Caddy.HTTPS, HTTP2: c.h2, Conns: c.conns})
	if err != nil {
		return err
	}
	defer clients.Close()
	targets := httpTargets()
	round := slices.Clone(targets)
	slices.Reverse(round)
	round = append(targets, round...)
	for r := range p.HTTPRounds {
		for k, t := range round {
			var warmup time.Duration
			if r == 0 && k < len(targets) {
				warmup = p.HTTPWarmup
			}
			e.Bar.Start(fmt.Sprintf("HTTPS round %d/%d: %s, %s", r+1, p.HTTPRounds, c.x(), t.name))
			res, err := load.Run(ctx, load.Config{
				URL: e.Caddy.HTTPS + t.path, Body: t.body, Clients: clients, Duration: p.HTTPSlice, Warmup: warmup,
				ExpectBody: t.expect, ExpectContentType: "application/json", CallsPerRequest: t.calls,
			})
			e.Bar.Done(ms(warmup) + httpSliceWork(p))
			if err != nil {
				return fmt.Errorf("%s %s: %w", c.x(), t.name, err)
			}
			runs.add(t.name, "rpc_per_s", c.x(), res.CallsPerSec)
			runs.add(t.name, "p99_ms", c.x(), res.P99)
		}
	}
	return nil
}
