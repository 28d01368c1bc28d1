package report

import (
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// sample is a document with one measured set, one goal and a browser set
// not yet measured.
func sample() *schema.Doc {
	s := schema.Set{ID: "ws", Group: "websocket", Title: "Pipelined", Status: schema.Measured, Harness: "loopback",
		XLabel: "conns", Metric: schema.Metric{Name: "rps", Unit: "calls per second", Better: schema.Higher},
		Cells: []string{"1 conn", "4 conns"},
		Series: []schema.Series{
			{Name: "ours", Label: "ours", Role: schema.Ours, Metric: "rps", Points: []schema.Point{
				schema.NewPoint("1 conn", []float64{400000, 500000, 450000}), schema.NewPoint("4 conns", []float64{800000, 800000, 800000})}},
			{Name: "geth", Label: "go-ethereum", Role: schema.Peer, Metric: "rps", Points: []schema.Point{
				schema.NewPoint("1 conn", []float64{40000, 40000, 40000}), schema.NewPoint("4 conns", []float64{40000, 40000, 40000})}},
			{Name: "ours", Label: "ours", Role: schema.Ours, Metric: "p99", Unit: "p99 | ms", Points: []schema.Point{
				schema.NewPoint("1 conn", []float64{1, 2, 3}), schema.NewPoint("4 conns", []float64{1, 1, 1})}},
		}}
	s.Compare("ours", "geth")
	runSteal, setSteal := 0.25, 0.4
	s.CPUSteal = &setSteal
	return &schema.Doc{Schema: schema.Version, Title: "benchmarks", Date: "2026-01-02T03:04:05Z",
		Machine: schema.Machine{CPU: "Xeon", CPUs: 2, LoadBefore: []float64{0.5, 1, 1.5}, LoadAfter: []float64{2, 1, 1},
			CPUSteal: &runSteal},
		Versions: schema.Versions{Go: "go1.26.8", Caddy: "v2.11.9", Commit: "abc"},
		Harness:  schema.Harness{Command: "bench/run", Seconds: 492},
		Policy:   []string{"every cell timed 3 times"},
		Goals: []schema.Goal{{ID: "ws_rpc", Issue: 4, Text: "≥500k calls per second", Set: "ws", Unit: "calls/s",
			Target: 500000, Measured: 800000, Met: true, Detail: "4 conns"}},
		Sets: []schema.Set{s, {ID: "browser", Group: "browser", Title: "Browser", Status: schema.NotMeasured, Note: "not yet measured"}}}
}

func TestTablesPutRatiosNextToPeers(t *testing.T) {
	d := sample()
	got := Tables(&d.Sets[0], false)[0].Markdown()
	for _, want := range []string{
		"| conns | ours | go-ethereum |\n| --- | ---: | ---: |\n",
		"| 1 conn | 450k | 40k (11.2x) |\n",
		"| 4 conns | 800k | 40k (20.0x) |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if ranged := Tables(&d.Sets[0], true)[0].Rows[0][1]; ranged != "450k [400k–500k]" {
		t.Errorf("with ranges: %q", ranged)
	}
	sec := Tables(&d.Sets[0], false)[1:]
	if len(sec) != 1 || sec[0].Caption != "p99 | ms" || sec[0].Rows[0][1] != "2 [1–3]" {
		t.Errorf("secondary: %+v", sec)
	}
}

func TestReadmeBlockHasHeaderGoalsAndEverySet(t *testing.T) {
	block, err := ReadmeBlock(sample())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Measured by `bench/run` on 2026-01-02: Xeon, 2 CPUs, go1.26.8, Caddy v2.11.9 (bin/caddy built unknown), commit abc; load average 0.50/1.00/1.50 before the run and 2.00/1.00/1.00 after; CPU steal 25%; 8 min 12 s in all.",
		"| ≥500k calls per second | #4 | 800k calls/s | met | 40% |",
		"**Pipelined** (calls per second; median of the runs",
		"; CPU steal 40%)\n",
		"**Browser**: not yet measured.",
	} {
		if !strings.Contains(block, want) {
			t.Errorf("missing %q in\n%s", want, block)
		}
	}
}

func TestReplaceBlockKeepsEverythingOutsideTheMarkers(t *testing.T) {
	readme := "# T\n\n## Performance\n\nintro\n\n" + StartMarker + "\nold\n" + EndMarker + "\n\n## Next\n"
	got, err := ReplaceBlock(readme, "new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# T\n\n## Performance\n\nintro\n\n" + StartMarker + "\nnew\n" + EndMarker + "\n\n## Next\n"; got != want {
		t.Fatalf("%q", got)
	}
	if _, err := ReplaceBlock("no markers", "x"); err == nil {
		t.Error("no error without markers")
	}
	if _, err := ReplaceBlock(StartMarker+"\nunterminated", "x"); err == nil {
		t.Error("no error without the end marker")
	}
}

func TestHTMLShowsChartsTablesAndGoals(t *testing.T) {
	page, err := HTML(sample())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<img src="charts/ws.png"`, `<td class="met">met</td>`, "40k (11.2x)", "not yet measured", "<caption>p99 | ms</caption>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("missing %q", want)
		}
	}
}

func TestRatioFormat(t *testing.T) {
	for v, want := range map[float64]string{163.8: "164x", 98.66: "98.7x", 1.014: "1.01x", 0.5: "0.50x"} {
		if got := Ratio(v); got != want {
			t.Errorf("Ratio(%v) = %q, want %q", v, got, want)
		}
	}
}
