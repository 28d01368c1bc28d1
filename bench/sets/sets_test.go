package sets

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/progress"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// figures fills set s: every series a point per cell, its value from f.
func figures(s *schema.Set, f func(name, metric, x string) float64) {
	c := collector{}
	for _, r := range s.Series {
		for _, x := range s.Cells {
			v := f(r.Name, r.Metric, x)
			c.add(r.Name, r.Metric, x, v)
			c.add(r.Name, r.Metric, x, v)
			c.add(r.Name, r.Metric, x, v)
		}
	}
	c.fill(s)
}

// measuredDoc is a document whose sets hold made-up figures.
func measuredDoc(p Profile) *schema.Doc {
	in := schema.Set{ID: "inprocess", Status: schema.Measured, Metric: schema.Metric{Name: "ns_per_call", Better: schema.Lower}}
	for _, c := range inCases() {
		in.Cells = append(in.Cells, c.x)
	}
	for _, name := range []string{"ours", "geth", "goccy"} {
		for _, m := range []string{"ns_per_call", "allocs_per_call"} {
			in.Series = append(in.Series, series(name, name, schema.Ours, m, m))
		}
	}
	figures(&in, func(name, metric, x string) float64 {
		switch {
		case metric == "allocs_per_call" && x == "StringMe":
			return 1
		case metric == "allocs_per_call":
			return 0.000001
		case name == "geth":
			return 15000
		case name == "goccy":
			return 500
		case x == "five cycled, 2 goroutines":
			return 70
		}
		return 120
	})
	in.Compare("ours", "geth")
	in.Compare("ours", "goccy")

	pipe := schema.Set{ID: "ws_pipelined", Status: schema.Measured, Metric: schema.Metric{Name: "rpc_per_s", Better: schema.Higher},
		Series: []schema.Series{series("ours", "ours", schema.Ours, "rpc_per_s", "")}}
	for _, c := range pipeCells(p) {
		pipe.Cells = append(pipe.Cells, c.x())
	}
	figures(&pipe, func(_, _, x string) float64 {
		if x == (pipeCell{4, 256}).x() {
			return 600000
		}
		return 300000
	})
	return &schema.Doc{Sets: []schema.Set{in, pipe}}
}

// streamDoc is a document of the stream and broadcast sets with made-up
// figures.
func streamDoc(p Profile) *schema.Doc {
	mk := func(id, metric string, better string, cells []string, names []string, f func(name, x string) float64) schema.Set {
		s := schema.Set{ID: id, Status: schema.Measured, Metric: schema.Metric{Name: metric, Better: better}, Cells: cells}
		for _, n := range names {
			s.Series = append(s.Series, series(n, n, schema.Peer, metric, ""))
		}
		figures(&s, func(name, _, x string) float64 { return f(name, x) })
		for _, n := range names[1:] {
			s.Compare(names[0], n)
		}
		return s
	}
	var cells []string
	for _, c := range p.StreamCells {
		cells = append(cells, c.x())
	}
	m := streamMain.x()
	rates := map[string]float64{"ours": 2e6, "geth": 1e5, "bare": 5e6, "ours_five": 2e6, "grpc_unary": 1e5, "grpc_stream": 5e5}
	byName := func(name, _ string) float64 { return rates[name] }
	broadcast := mk("ws_broadcast", "ms", schema.Lower, []string{broadcastX(1000)},
		[]string{"ours", "geth", "writes", "fanout_parallel"}, func(name, _ string) float64 {
			return map[string]float64{"ours": 4, "geth": 9, "writes": 3.6, "fanout_parallel": 5}[name]
		})
	broadcast.Compare("fanout_parallel", "geth")
	return &schema.Doc{Sets: []schema.Set{
		mk("stream_pipelined", "rpc_per_s", schema.Higher, cells, []string{"ours", "geth", "bare"}, byName),
		mk("stream_blocking", "rpc_per_s", schema.Higher, []string{m}, []string{"ours", "ours_five"},
			func(name, x string) float64 { return rates[name] / 2 }),
		mk("stream_grpc", "rpc_per_s", schema.Higher, []string{m}, []string{"ours", "grpc_unary", "grpc_stream"}, byName),
		mk("stream_flood", "items_per_s", schema.Higher, []string{floodX}, []string{"ours", "bare"}, byName),
		mk("stream_memory", "kib_per_conn", schema.Lower, []string{memoryX(p.IdleConns)}, []string{"ours"},
			func(string, string) float64 { return 4.5 }),
		broadcast,
	}}
}

func TestStreamAndBroadcastGoalsReadTheirCells(t *testing.T) {
	p := Full()
	goals := map[string]schema.Goal{}
	for _, g := range Goals(streamDoc(p), p) {
		goals[g.ID] = g
	}
	for id, want := range map[string]struct {
		measured float64
		met      bool
	}{
		"stream_tcp_rpc":         {2e6, false},
		"stream_vs_geth":         {20, true},
		"stream_blocking":        {1e6, true},
		"stream_vs_grpc_unary":   {20, true},
		"stream_vs_grpc_stream":  {4, true},
		"stream_flood":           {2e6, false},
		"stream_memory":          {4.5, true},
		"ws_broadcast_vs_writes": {1.11, true},
		"ws_broadcast_vs_geth":   {2.25, true},
	} {
		if g := goals[id]; g.Measured != want.measured || g.Met != want.met {
			t.Errorf("%s: %+v, want %v met=%v", id, g, want.measured, want.met)
		}
	}
	if g := goals["ws_broadcast_vs_writes"]; !strings.Contains(g.Detail, "one goroutine per processor 5.00 ms (the floor: 1.39x the writes alone, ours 0.80x of it)") {
		t.Errorf("the parallel fan-out is not named: %q", g.Detail)
	}
	if g := goals["ws_broadcast_vs_geth"]; !strings.Contains(g.Detail, "the floor, fanout_parallel, 1.8x geth (1.8x to 1.8x by run), ours 1.25x of it") {
		t.Errorf("the parallel fan-out is not named: %q", g.Detail)
	}
	if g := goals["stream_tcp_rpc"]; !strings.Contains(g.Detail, "bare server with no JSON-RPC: 5.00M") {
		t.Errorf("the floor is not named: %q", g.Detail)
	}
}

// clientDoc is a document of the client set with made-up figures.
func clientDoc(p Profile) *schema.Doc {
	s := schema.Set{ID: "client_pipelined", Status: schema.Measured,
		Metric: schema.Metric{Name: "rpc_per_s", Better: schema.Higher}}
	for _, c := range p.ClientCells {
		s.Cells = append(s.Cells, c.x())
	}
	for _, m := range []string{"rpc_per_s", allocsAll, allocsNumeric} {
		for _, r := range clientSeries {
			s.Series = append(s.Series, series(r.name, r.label, r.role, m, ""))
		}
	}
	figures(&s, func(name, metric, x string) float64 {
		switch {
		case metric == "rpc_per_s":
			return map[string]float64{"ours": 9e5, "ours_go": 1.2e6, "geth": 1e5, "bare": 9.5e5}[name]
		case name == "geth":
			return 40
		case name == "ours_go" && x == clientMain.x():
			return 2.5
		}
		return 1
	})
	s.Compare("ours", "ours_go")
	s.Compare("ours", "geth")
	s.Compare("ours_go", "geth")
	s.Compare("bare", "geth")
	s.Compare("ours", "bare")
	return &schema.Doc{Sets: []schema.Set{s}}
}

func TestClientGoalsReadBothWaysOfCalling(t *testing.T) {
	p := Full()
	goals := map[string]schema.Goal{}
	for _, g := range Goals(clientDoc(p), p) {
		goals[g.ID] = g
	}
	for id, want := range map[string]struct {
		measured float64
		met      bool
	}{
		"client_vs_geth":        {9, false},
		"client_go_vs_geth":     {12, true},
		"client_allocs_numeric": {2.5, false},
	} {
		if g := goals[id]; g.Measured != want.measured || g.Met != want.met || g.Issue != 12 {
			t.Errorf("%s: %+v, want %v met=%v", id, g, want.measured, want.met)
		}
	}
	if g := goals["client_allocs_numeric"]; !strings.Contains(g.Detail, "4 conns × 256 in flight 2.50") ||
		!strings.Contains(g.Detail, "go-ethereum's client 40.0") {
		t.Errorf("client_allocs_numeric detail %q", g.Detail)
	}
	if g := goals["client_vs_geth"]; !strings.Contains(g.Detail, "the floor, bare, 9.5x geth") ||
		!strings.Contains(g.Detail, "ours 0.95x of it") {
		t.Errorf("client_vs_geth detail %q", g.Detail)
	}
	if g := goals["client_go_vs_geth"]; !strings.Contains(g.Detail, "1 conn × 1 in flight 12.0x") {
		t.Errorf("client_go_vs_geth detail %q", g.Detail)
	}
}

func TestGoalsReadTheirCells(t *testing.T) {
	p := Full()
	goals := map[string]schema.Goal{}
	for _, g := range Goals(measuredDoc(p), p) {
		goals[g.ID] = g
	}
	for id, want := range map[string]struct {
		measured float64
		met      bool
	}{
		"inprocess_vs_geth":        {125, true},
		"inprocess_vs_goccy":       {4.17, false},
		"inprocess_ns":             {120, true},
		"inprocess_allocs_numeric": {0, true},
		"inprocess_allocs_string":  {1, true},
		"inprocess_batch":          {1, true},
		"inprocess_parallel":       {1.71, false},
		"ws_rpc":                   {600000, true},
		"http_vs_respond":          {0, false},
	} {
		g, ok := goals[id]
		if !ok || g.Measured != want.measured || g.Met != want.met {
			t.Errorf("%s: %+v, want %v met=%v", id, g, want.measured, want.met)
		}
	}
	if g := Goals(nearGoal(), p)[0]; g.Measured != 100 || g.Met {
		t.Errorf("99.996x rounds to 100x but does not meet 100x: %+v", g)
	}
	if g := goals["http_vs_respond"]; g.Detail != "not measured" {
		t.Errorf("a goal of a missing set: %+v", g)
	}
	if g := goals["ws_rpc"]; !strings.Contains(g.Detail, "300k with 1 connection, 600k with 4") {
		t.Errorf("ws_rpc detail %q", g.Detail)
	}
}

func TestHTTPGoalReadsTheMedianOfPairedSlices(t *testing.T) {
	h1, h2 := httpCell{false, 64}.x(), httpCell{true, 64}.x()
	s := schema.Set{ID: "http", Status: schema.Measured, Metric: schema.Metric{Name: "rpc_per_s", Better: schema.Higher},
		Cells: []string{h1, h2}, Series: []schema.Series{series("ours", "ours", schema.Ours, "rpc_per_s", ""),
			series("respond", "respond", schema.Ceiling, "rpc_per_s", "")}}
	runs := collector{}
	// On HTTP/1.1 the last pair falls in a slow phase of the machine.
	for i, v := range []float64{100, 97, 96, 99, 40} {
		runs.add("respond", "rpc_per_s", h1, []float64{100, 100, 100, 100, 50}[i])
		runs.add("ours", "rpc_per_s", h1, v)
		runs.add("respond", "rpc_per_s", h2, 100)
		runs.add("ours", "rpc_per_s", h2, 99)
	}
	runs.fill(&s)
	s.Compare("ours", "respond")
	var g schema.Goal
	for _, r := range Goals(&schema.Doc{Sets: []schema.Set{s}}, Full()) {
		if r.ID == "http_vs_respond" {
			g = r
		}
	}
	if g.Measured != 0.97 || !g.Met || !strings.Contains(g.Detail, h1+" 0.97x (5 pairs, 0.80x to 1.00x)") {
		t.Errorf("%+v", g)
	}
}

// nearGoal is a document where ours is 99.996 times faster than go-ethereum.
func nearGoal() *schema.Doc {
	s := schema.Set{ID: "inprocess", Status: schema.Measured, Metric: schema.Metric{Name: "ns_per_call", Better: schema.Lower},
		Cells: []string{"five cycled"}, Series: []schema.Series{
			series("ours", "ours", schema.Ours, "ns_per_call", ""), series("geth", "geth", schema.Peer, "ns_per_call", "")}}
	figures(&s, func(name, _, _ string) float64 {
		if name == "geth" {
			return 9999.6
		}
		return 100
	})
	s.Compare("ours", "geth")
	return &schema.Doc{Sets: []schema.Set{s}}
}

func TestGoalsNameCellsTheSetsMake(t *testing.T) {
	p := Quick()
	cells := map[string][]string{"ws_pipelined": nil, "http": nil, "ws_broadcast": nil}
	for _, c := range pipeCells(p) {
		cells["ws_pipelined"] = append(cells["ws_pipelined"], c.x())
	}
	for _, c := range httpCells(p) {
		cells["http"] = append(cells["http"], c.x())
	}
	for _, n := range p.BroadcastSizes {
		cells["ws_broadcast"] = append(cells["ws_broadcast"], broadcastX(n))
	}
	for _, want := range []struct{ set, x string }{
		{"ws_pipelined", "1 conn × 256 in flight"}, {"ws_pipelined", "4 conns × 256 in flight"},
		{"http", "HTTP/1.1, 64 conns"}, {"http", "HTTP/2, 64 conns"}, {"ws_broadcast", "1,000 subscribers"},
	} {
		found := false
		for _, x := range cells[want.set] {
			found = found || x == want.x
		}
		if !found {
			t.Errorf("%s has no cell %q: %v", want.set, want.x, cells[want.set])
		}
	}
	for _, c := range inCases() {
		if c.x == "five cycled" {
			return
		}
	}
	t.Error("no five cycled case")
}

func TestBrowserFoldsTheHostsRowsAndKeepsAnythingElse(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "browser.json")
	if s := Browser(file); s.Status != schema.NotMeasured || !strings.Contains(s.Note, "does not exist") {
		t.Errorf("missing file: %+v", s)
	}
	os.WriteFile(file, []byte(`{"browser":"Chrome/1","mode":"full","date":"d","rows":[
		{"name":"bytes path","us_per_call":2,"rpc_per_s":500000},{"name":"Go loop","us_per_call":0.5,"rpc_per_s":2000000}]}`), 0o644)
	s := Browser(file)
	if s.Status != schema.Measured || len(s.Cells) != 2 || len(s.Series) != 2 || !strings.Contains(s.Harness, "Chrome/1") {
		t.Errorf("the host's rows: %+v", s)
	}
	if v, ok := s.Value("ours", "Go loop"); !ok || v != 0.5 {
		t.Errorf("Go loop: %v %v", v, ok)
	}
	if err := schema.Check(&schema.Doc{Sets: []schema.Set{s}}, nil, 5); err != nil && strings.Contains(err.Error(), "browser") {
		t.Errorf("the browser set fails the check: %v", err)
	}
	os.WriteFile(file, []byte(`{"rows":[{"path":"bytes","us":2}]}`), 0o644)
	if s := Browser(file); s.Status != schema.NotMeasured || s.Source == nil {
		t.Errorf("another shape: %+v", s)
	}
}

func TestWorkEstimatesTheFullRunWithinTenMinutes(t *testing.T) {
	p := Full()
	if got, want := Work("inprocess", p), len(inprocess.All())*9*(120+5*270); got != want {
		t.Errorf("in process: %d ms, want %d", got, want)
	}
	total := 0
	for _, g := range []string{"inprocess", "http", "websocket", "stream", "client", "nodes"} {
		total += Work(g, p)
	}
	if w := Work("nodes", p); w > 60*1000 {
		t.Errorf("the nodes set is estimated at %d s", w/1000)
	}
	if total < 6*60*1000 || total > 12*60*1000 {
		t.Errorf("the full run is estimated at %d s", total/1000)
	}
	if s := Full().Settings(); s["profile"] != "full" || s["timed_runs_per_cell"] != "5" {
		t.Errorf("%v", s)
	}
}

func TestPluralAndThousands(t *testing.T) {
	if got := Count(1, "conn", "conns") + "; " + Count(10000, "conn", "conns"); got != "1 conn; 10,000 conns" {
		t.Error(got)
	}
}

func TestNodesGoalReadsTheTwoNodesBesideOneNode(t *testing.T) {
	p := Full()
	s := schema.Set{ID: "nodes_broadcast", Status: schema.Measured, Title: "t", Harness: "h",
		Metric: schema.Metric{Name: nodesRate, Unit: "u", Better: schema.Higher}, Cells: []string{nodesNoHistory, nodesHistory}}
	for _, m := range []string{nodesRate, "ms", nodesClientCPU, nodesServerCPU} {
		s.Series = append(s.Series, series("ours", "ours", schema.Ours, m, ""), series("one_node", "one", schema.Baseline, m, ""))
	}
	figures(&s, func(name, metric, x string) float64 {
		switch {
		case metric == nodesServerCPU:
			return 1.25
		case metric == nodesClientCPU:
			return 0.7
		case metric != nodesRate:
			return 8
		case name == "one_node" && x == nodesNoHistory:
			return 1.2e6
		case name == "one_node":
			return 9e5
		case x == nodesNoHistory:
			return 4.5e5
		}
		return 3e5
	})
	s.Compare("ours", "one_node")
	var g schema.Goal
	for _, r := range Goals(&schema.Doc{Sets: []schema.Set{s}}, p) {
		if r.ID == "nodes_delivered" {
			g = r
		}
	}
	if g.Measured != 450000 || g.Met || g.Issue != 13 || g.Cell != nodesNoHistory || g.Metric != nodesRate {
		t.Fatalf("%+v", g)
	}
	for _, want := range []string{"two nodes over NATS 450k (cores busy: 1.25 in the servers, 0.70 in the harness)",
		"one node with the local hub 1.20M", "0.38x", "with history: two nodes 300k, one node 900k"} {
		if !strings.Contains(g.Detail, want) {
			t.Errorf("detail %q lacks %q", g.Detail, want)
		}
	}
	if err := schema.Check(&schema.Doc{Sets: []schema.Set{s}}, nil, 3); err != nil && strings.Contains(err.Error(), "nodes") {
		t.Errorf("the set fails the check: %v", err)
	}
}

func TestTurnsTakeTurnsAndFillEveryCell(t *testing.T) {
	e := &Env{Bar: progress.New(io.Discard, 100)}
	s := schema.Set{ID: "s", Metric: schema.Metric{Name: "m"}, Cells: []string{"a", "b"}}
	var order []string
	var targets []target
	for _, name := range []string{"x", "y", "z"} {
		targets = append(targets, target{name: name, work: fixed(1), measure: func(i int, add func(string, ...float64)) error {
			order = append(order, name+s.Cells[i])
			add("m", float64(len(order)))
			return nil
		}})
		s.Series = append(s.Series, targets[len(targets)-1].series("m", "u"))
	}
	if err := e.turns(&s, 2, true, targets); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, " "); got != "xa ya za ya za xa xb yb zb yb zb xb" {
		t.Errorf("order %s", got)
	}
	if p := s.SeriesOf("y", "m").Point("b"); p == nil || !slices.Equal(p.Runs, []float64{8, 10}) {
		t.Errorf("y on b: %+v", p)
	}
	targets[0].measure = func(int, func(string, ...float64)) error { return errors.New("boom") }
	if err := e.turns(&s, 1, false, targets); err == nil || !strings.Contains(err.Error(), "s 1/1: a, x: boom") {
		t.Errorf("error %v", err)
	}
}
