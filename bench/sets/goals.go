package sets

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// goal is a target and how to read it: measure; else the comparison of ours
// ("ours" when unset) with peer on cell x, the series floor named beside it;
// else ours on x (cell, or the set's first), floor and what it is beside it.
type goal struct {
	id, set, text, unit  string
	metric, cell         string // a threshold on the set's main metric, on one cell or all
	issue                int
	target               float64
	atMost               bool // met when measured ≤ target, else when ≥
	ours, peer, floor, x string
	what                 string
	medians              bool // a comparison says both medians rather than the ratios on the other cells
	measure              reading
}

// reading reads a goal's figure from its set and says where it comes from; false when it lacks it.
type reading func(s *schema.Set) (float64, string, bool)

// Goals checks d against every goal; one whose set or cells are missing is not met, and says so.
func Goals(d *schema.Doc, p Profile) []schema.Goal {
	var out []schema.Goal
	for _, g := range goalList(p) {
		r := schema.Goal{ID: g.id, Issue: g.issue, Text: g.text, Set: g.set, Target: g.target, Unit: g.unit,
			Metric: g.metric, Cell: g.cell}
		s := d.Find(g.set)
		if s == nil || s.Status != schema.Measured {
			r.Detail = "not measured"
		} else if v, detail, ok := g.read(s); !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			r.Detail = "not measured: " + detail
		} else {
			r.Measured, r.Detail = round(v), detail
			if g.unit == "allocs" {
				// Counted over the whole process, a few stray allocations of
				// the runtime in millions of calls are not the code's.
				v = r.Measured
			}
			r.Met = v >= g.target
			if g.atMost {
				r.Met = v <= g.target
			}
		}
		out = append(out, r)
	}
	return out
}

func goalList(p Profile) []goal {
	h1, h2, m, cm := httpCell{false, 64}.x(), httpCell{true, 64}.x(), streamMain.x(), clientMain.x()
	return []goal{
		{id: "inprocess_vs_geth", issue: 2, set: "inprocess", unit: "x", target: 100, peer: "geth", x: "five cycled",
			text: "≥100x faster than go-ethereum in process (the five requests cycled)"},
		{id: "inprocess_vs_goccy", issue: 2, set: "inprocess", unit: "x", target: 5, peer: "goccy", x: "five cycled",
			text: "≥5x faster than the plain goccy/go-json dispatcher (the five requests cycled)"},
		{id: "inprocess_ns", issue: 2, set: "inprocess", unit: "ns", target: 150, atMost: true, x: "five cycled",
			text: "≤150 ns per request averaged over the five (cycled, one goroutine)"},
		{id: "inprocess_allocs_numeric", issue: 2, set: "inprocess", unit: "allocs", target: 0, atMost: true,
			text: "0 allocations per request for the four numeric requests", measure: allocGoal(inprocess.Workload[:4])},
		{id: "inprocess_allocs_string", issue: 2, set: "inprocess", unit: "allocs", target: 1, atMost: true,
			text: "≤1 allocation per request for StringMe", measure: allocGoal(inprocess.Workload[4:])},
		{id: "inprocess_batch", issue: 2, set: "inprocess", unit: "x", target: 1, atMost: true,
			text:    "a batch of 100 costs no more per request than single documents (batch ÷ cycled, ns per call)",
			measure: cellRatio("batch of 100", "five cycled", "ours: %.0f ns per call in a batch, %.0f ns cycled")},
		{id: "inprocess_parallel", issue: 2, set: "inprocess", unit: "x", target: 1.8,
			text: "two goroutines give ≥1.8x one (the five cycled)",
			measure: cellRatio("five cycled", "five cycled, 2 goroutines",
				"ours: %.0f ns per call from 1 goroutine, %.0f ns from 2")},
		{id: "http_vs_respond", issue: 3, set: "http", unit: "x", target: 0.95,
			text:    "jsonrpc ≥0.95x Caddy's respond over HTTPS, 64 connections (the lower of HTTP/1.1 and HTTP/2)",
			measure: pairedRatioGoal("ours", "respond", h1, h2)},
		{id: "http_batch", issue: 3, set: "http_batch", unit: "x", target: 30,
			text:    "a batch of 100 per POST gives ≥30x the single-call RPC/s, 64 connections (the lower of HTTP/1.1 and HTTP/2)",
			measure: pairedRatioGoal("ours_batch100", "ours", h1, h2)},
		{id: "ws_rpc", issue: 4, set: "ws_pipelined", unit: "calls/s", target: 500000, metric: "rpc_per_s",
			text: "≥500k calls per second pipelined over WebSocket, 256 in flight (the better of 1 and 4 connections)",
			measure: func(s *schema.Set) (float64, string, bool) {
				one, ok1 := s.Value("ours", pipeCell{1, 256}.x())
				four, ok2 := s.Value("ours", pipeCell{4, 256}.x())
				return max(one, four), fmt.Sprintf("ours: %s with 1 connection, %s with 4", rate(one), rate(four)), ok1 && ok2
			}},
		{id: "ws_broadcast_vs_writes", issue: 11, set: "ws_broadcast", unit: "x", target: 1.15, atMost: true,
			text: "broadcast to 1,000 subscribers within 1.15x of the 1,000 write system calls alone, measured in the same run (ours ÷ writes, ms)",
			measure: func(s *schema.Set) (float64, string, bool) {
				x := broadcastX(1000)
				v, ok1 := s.Value("ours", x)
				w, ok2 := s.Value("writes", x)
				fp := value(s, "fanout_parallel", x)
				return v / w, fmt.Sprintf("ours %.2f ms, the write system calls alone %.2f ms (medians); go-ethereum %.2f ms; "+
					"bare fan-out with no JSON-RPC %.2f ms, over wsconn from one goroutine per processor %.2f ms (the "+
					"floor: %.2fx the writes alone, ours %.2fx of it); writes and reads in one process %.2f ms",
					v, w, value(s, "geth", x), value(s, "fanout", x), fp, fp/w, v/fp, value(s, "writes_read", x)), ok1 && ok2
			}},
		{id: "ws_broadcast_vs_geth", issue: 11, set: "ws_broadcast", unit: "x", target: 2, peer: "geth",
			floor: "fanout_parallel", x: broadcastX(1000), text: "broadcast to 1,000 subscribers ≥2x faster than go-ethereum"},
		{id: "ws_memory", issue: 4, set: "ws_memory", unit: "KiB", target: 16, atMost: true, metric: "kib_per_conn",
			text: fmt.Sprintf("≤16 KiB of server memory per idle connection, %s open", thousands(p.IdleConns))},
		{id: "stream_tcp_rpc", issue: 11, set: "stream_pipelined", unit: "calls/s", target: 2.5e6, metric: "rpc_per_s",
			cell: m, floor: "bare", what: "the bare server with no JSON-RPC",
			text: "≥2.5M calls per second pipelined over TCP, 4 connections × 256 in flight, client included"},
		{id: "stream_vs_geth", issue: 11, set: "stream_pipelined", unit: "x", target: 10, peer: "geth", x: m,
			text: "≥10x go-ethereum's IPC server, pipelined, 4 connections × 256 in flight"},
		{id: "stream_blocking", issue: 11, set: "stream_blocking", unit: "calls/s", target: 1e6, metric: "rpc_per_s",
			cell: m, floor: "ours_five", what: "the five requests, not blocking, on the same listener",
			text: "≥1M calls per second of a Blocking method that waits (delay(0)) over TCP, 4 connections × 256 in flight"},
		{id: "stream_vs_grpc_unary", issue: 11, set: "stream_grpc", unit: "x", target: 5, peer: "grpc_unary", x: m, medians: true,
			text: "≥5x gRPC-Go's unary calls, 4 connections × 256 in flight"},
		{id: "stream_vs_grpc_stream", issue: 11, set: "stream_grpc", unit: "x", target: 3, peer: "grpc_stream", x: m, medians: true,
			text: "≥3x gRPC-Go's calls over one bidirectional stream per connection, 4 connections × 256 in flight"},
		{id: "stream_flood", issue: 11, set: "stream_flood", unit: "items/s", target: 3e6, metric: "items_per_s",
			cell: floodX, floor: "bare", what: "the bare server writing pre-encoded notifications",
			text: "≥3M notifications per second from one subscription to one client over TCP, every one parsed"},
		{id: "stream_memory", issue: 11, set: "stream_memory", unit: "KiB", target: 8, atMost: true, metric: "kib_per_conn",
			text: fmt.Sprintf("≤8 KiB of server memory per idle TCP connection, %s open", thousands(p.IdleConns))},
		{id: "client_vs_geth", issue: 12, set: "client_pipelined", unit: "x", target: 10, peer: "geth", floor: "bare", x: cm,
			text: "≥10x go-ethereum's client in calls per second over WebSocket, 4 connections × 256 in flight: rpcclient from goroutines calling CallT, as go-ethereum's is called"},
		{id: "client_go_vs_geth", issue: 12, set: "client_pipelined", unit: "x", target: 10, ours: "ours_go", peer: "geth",
			x:    cm,
			text: "≥10x go-ethereum's client in calls per second over WebSocket, 4 connections × 256 in flight: rpcclient's GoCall, one goroutine per connection"},
		{id: "nodes_delivered", issue: 13, set: "nodes_broadcast", unit: "notifications/s", target: 500000,
			metric: nodesRate, cell: nodesNoHistory, measure: nodesGoal,
			text: fmt.Sprintf("≥500k notifications per second delivered across two Caddy nodes joined by NATS, %s subscribers, no history", thousands(p.NodesSubscribers))},
		{id: "nodes_history_delivered", issue: 31, set: "nodes_broadcast", unit: "notifications/s", target: 1000000,
			metric: nodesRate, cell: nodesHistory, floor: "one_node", what: "one node with the local hub and history",
			text: fmt.Sprintf("≥1M notifications per second delivered across two Caddy nodes joined by NATS with history "+
				"(a JetStream stream), %s subscribers", thousands(p.NodesSubscribers))},
		{id: "nodes_history_vs_local", issue: 31, set: "nodes_broadcast", unit: "x", target: 0.7, peer: "one_node",
			x:    nodesHistory,
			text: "≥0.7x one node's local hub with history: two nodes joined by NATS with history, in the same run"},
		{id: "client_allocs_numeric", issue: 12, set: "client_pipelined", unit: "allocs", target: 2, atMost: true,
			text:    "≤2 allocations per call with a numeric result in rpcclient (CallT from goroutines and Go, every cell)",
			measure: clientAllocGoal},
	}
}

// clientAllocGoal reads the most allocations per numeric call of CallT and Go over the client set's cells.
func clientAllocGoal(s *schema.Set) (float64, string, bool) {
	worst := 0.0
	var parts []string
	for _, name := range []string{"ours", "ours_go"} {
		v, text, ok := most(s.SeriesOf(name, allocsNumeric), s.Cells)
		if !ok {
			return 0, name + ": " + text, false
		}
		worst = max(worst, v)
		parts = append(parts, name+": "+text)
	}
	if p := s.SeriesOf("geth", allocsNumeric).Point(clientMain.x()); p != nil {
		parts = append(parts, fmt.Sprintf("go-ethereum's client %.1f at %s", p.Median, p.X))
	}
	return worst, "allocations per call with a numeric result, medians (counted over the client's process): " +
		strings.Join(parts, "; "), true
}

// nodesGoal reads the two nodes' rate without history, beside one node's,
// the cores kept busy, and the figures with history.
func nodesGoal(s *schema.Set) (float64, string, bool) {
	v, ok := s.Value("ours", nodesNoHistory)
	one := value(s, "one_node", nodesNoHistory)
	busy := func(name, metric string) float64 {
		if p := s.SeriesOf(name, metric).Point(nodesNoHistory); p != nil {
			return p.Median
		}
		return math.NaN()
	}
	return v, fmt.Sprintf("%s, medians: two nodes over NATS %s (cores busy: %.2f in the servers, %.2f in the harness), "+
		"one node with the local hub %s in the same run (%.2f and %.2f), the two nodes %.2fx of it; %s: two nodes %s, "+
		"one node %s", nodesNoHistory, rate(v), busy("ours", nodesServerCPU), busy("ours", nodesClientCPU), rate(one),
		busy("one_node", nodesServerCPU), busy("one_node", nodesClientCPU), v/one, nodesHistory,
		rate(value(s, "ours", nodesHistory)), rate(value(s, "one_node", nodesHistory))), ok
}

// value is the median of series name on cell x of the main metric, or 0.
func value(s *schema.Set, name, x string) float64 {
	v, _ := s.Value(name, x)
	return v
}

func (g goal) read(s *schema.Set) (float64, string, bool) {
	x := cmp.Or(g.x, g.cell)
	switch {
	case g.measure != nil:
		return g.measure(s)
	case g.peer != "":
		return ratio(s, cmp.Or(g.ours, "ours"), g.peer, g.floor, x, g.medians)
	case x == "" && len(s.Cells) > 0:
		x = s.Cells[0]
	}
	v, ok := s.Value("ours", x)
	if g.floor == "" {
		return v, "ours, " + x, ok
	}
	return v, fmt.Sprintf("%s, median: %s; %s: %s in the same run", x, rate(v), g.what, rate(value(s, g.floor, x))), ok
}

// ratio reads the comparison of ours with peer on cell x: with both
// medians, or with the ratio on each other cell and floor's ratio to peer.
func ratio(s *schema.Set, ours, peer, floor, x string, medians bool) (float64, string, bool) {
	c := s.Comparison(ours, peer, x)
	if c == nil {
		return 0, "no comparison of " + ours + " with " + peer + " on " + x, false
	}
	if medians {
		return c.Ratio, fmt.Sprintf("%s: %s %s, %s %s (%.1fx to %.1fx by run)", x, ours, rate(c.OursMedian), peer,
			rate(c.PeerMedian), c.Low, c.High), true
	}
	var others []string
	for _, o := range s.Comparisons {
		if o.Ours == ours && o.Peer == peer && o.X != x {
			others = append(others, fmt.Sprintf("%s %.1fx", o.X, o.Ratio))
		}
	}
	detail := fmt.Sprintf("%s: %.1fx (%.1fx to %.1fx by run); %s", x, c.Ratio, c.Low, c.High, strings.Join(others, ", "))
	if f := s.Comparison(floor, peer, x); f != nil {
		detail += fmt.Sprintf("; the floor, %s, %.1fx %s (%.1fx to %.1fx by run)", floor, f.Ratio, peer, f.Low, f.High)
	}
	if o := s.Comparison(ours, floor, x); o != nil {
		detail += fmt.Sprintf(", ours %.2fx of it", o.Ratio)
	}
	return c.Ratio, detail, true
}

// cellRatio reads ours on cell a divided by ours on cell b, both said with format.
func cellRatio(a, b, format string) reading {
	return func(s *schema.Set) (float64, string, bool) {
		va, ok1 := s.Value("ours", a)
		vb, ok2 := s.Value("ours", b)
		return va / vb, fmt.Sprintf(format, va, vb), ok1 && ok2
	}
}

// pairedRatioGoal reads the lowest pairedRatio of ours to peer over cells xs.
func pairedRatioGoal(ours, peer string, xs ...string) reading {
	return func(s *schema.Set) (float64, string, bool) {
		worst := math.Inf(1)
		var parts []string
		for _, x := range xs {
			v, text, ok := pairedRatio(s, ours, peer, x)
			if !ok {
				return 0, text, false
			}
			worst = min(worst, v)
			parts = append(parts, text)
		}
		return worst, "median of the ratios of runs taken side by side (pairs, lowest to highest): " +
			strings.Join(parts, "; "), true
	}
}

// pairedRatio is the median of schema's Paired ratios of ours to peer on x, with their count and range.
func pairedRatio(s *schema.Set, ours, peer, x string) (float64, string, bool) {
	r := s.Paired(ours, peer, x)
	if len(r) == 0 {
		return 0, "no runs of " + ours + " and " + peer + " on " + x, false
	}
	m := schema.Median(r)
	return m, fmt.Sprintf("%s %.2fx (%s, %.2fx to %.2fx)", x, m, Count(len(r), "pair", "pairs"), slices.Min(r),
		slices.Max(r)), true
}

// allocGoal reads the most allocations per call of ours over calls.
func allocGoal(calls []inprocess.Call) reading {
	return func(s *schema.Set) (float64, string, bool) {
		methods := names(calls, func(c inprocess.Call) string { return c.Method })
		v, text, ok := most(s.SeriesOf("ours", "allocs_per_call"), methods)
		return v, "ours, per call (counted over the whole process, rounded to 2 decimals): " + text, ok
	}
}

// most returns the highest median of r over cells xs, and says each: "add 0.00, addInt 0.00".
func most(r *schema.Series, xs []string) (float64, string, bool) {
	worst := 0.0
	var parts []string
	for _, x := range xs {
		p := r.Point(x)
		if p == nil {
			return 0, "no figure for " + x, false
		}
		worst = max(worst, p.Median)
		parts = append(parts, fmt.Sprintf("%s %.2f", x, p.Median))
	}
	return worst, strings.Join(parts, ", "), true
}

// round keeps 2 decimals for small figures, 3 significant digits otherwise.
func round(v float64) float64 {
	if math.Abs(v) < 100 {
		return math.Round(v*100) / 100
	}
	return math.Round(v)
}

// rate formats calls per second: 512k, 1.51M.
func rate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
