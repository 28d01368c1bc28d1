package schema

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is a small complete document: one set, ours against a peer on
// two cells, three runs each.
func sample() *Doc {
	s := Set{ID: "s", Group: "g", Title: "t", Status: Measured, Harness: "h", XLabel: "x",
		Metric: Metric{Name: "ns", Unit: "ns per call", Better: Lower}, Cells: []string{"a", "b"},
		Series: []Series{
			{Name: "ours", Label: "ours", Role: Ours, Metric: "ns", Unit: "ns",
				Points: []Point{NewPoint("a", []float64{10, 12, 10}), NewPoint("b", []float64{20, 20, 20})}},
			{Name: "peer", Label: "peer", Role: Peer, Metric: "ns", Unit: "ns",
				Points: []Point{NewPoint("a", []float64{100, 90, 110}), NewPoint("b", []float64{40, 40, 40})}},
			{Name: "ours", Label: "ours", Role: Ours, Metric: "allocs", Unit: "allocs",
				Points: []Point{NewPoint("a", []float64{0, 0, 0}), NewPoint("b", []float64{0, 0, 0})}},
		}}
	s.Compare("ours", "peer")
	return &Doc{Schema: Version, Title: "t", Date: "2026-01-02T03:04:05Z", Policy: []string{"p"},
		Machine:  Machine{CPU: "cpu", CPUs: 2, LoadBefore: []float64{1, 2, 3}, LoadAfter: []float64{1, 2, 3}},
		Versions: Versions{Go: "go1.26"}, Harness: Harness{Command: "bench/run"},
		Goals: []Goal{{ID: "g", Text: "goal", Set: "s", Measured: 10}},
		Sets:  []Set{s, {ID: "browser", Group: "browser", Status: NotMeasured}}}
}

func TestNewPointTakesMedianAndRange(t *testing.T) {
	p := NewPoint("x", []float64{3, 1, 2, 10})
	if p.Median != 2.5 || p.Low != 1 || p.High != 10 || len(p.Runs) != 4 {
		t.Fatalf("%+v", p)
	}
	if p := NewPoint("x", nil); p.Median != 0 || len(p.Runs) != 0 {
		t.Fatalf("%+v", p)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing")
	}
}

func TestCompareSaysHowManyTimesBetterOursIs(t *testing.T) {
	s := sample().Sets[0]
	c := s.Comparison("ours", "peer", "a")
	if c == nil || c.Ratio != 10 || c.Low != 7.5 || c.High != 11 {
		t.Fatalf("lower is better: %+v", c)
	}
	s.Metric.Better = Higher
	s.Comparisons = nil
	s.Compare("ours", "peer")
	if c := s.Comparison("ours", "peer", "b"); c == nil || c.Ratio != 0.5 {
		t.Fatalf("higher is better: %+v", c)
	}
}

func TestCheckAcceptsACompleteDocument(t *testing.T) {
	if err := Check(sample(), []string{"s", "browser"}, 3); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFindsEveryGap(t *testing.T) {
	for name, tc := range map[string]struct {
		spoil func(d *Doc)
		want  string
	}{
		"missing set":    {func(d *Doc) {}, "set other missing"},
		"failed set":     {func(d *Doc) { d.Sets[0].Status = Failed; d.Sets[0].Error = "boom" }, "boom"},
		"missing cell":   {func(d *Doc) { d.Sets[0].Series[1].Points = d.Sets[0].Series[1].Points[:1] }, `no figure for "b"`},
		"too few runs":   {func(d *Doc) { d.Sets[0].Series[0].Points[0].Runs = []float64{11} }, "runs [11], want at least 3"},
		"zero figure":    {func(d *Doc) { d.Sets[0].Series[1].Points[0] = NewPoint("a", []float64{0, 0, 0}) }, "ns is 0"},
		"negative":       {func(d *Doc) { d.Sets[0].Series[2].Points[0] = NewPoint("a", []float64{-1, 0, 0}) }, "none negative"},
		"no comparison":  {func(d *Doc) { d.Sets[0].Comparisons = d.Sets[0].Comparisons[:1] }, "no comparison of ours with peer"},
		"bad range":      {func(d *Doc) { d.Sets[0].Series[0].Points[0].High = 99 }, "disagree"},
		"no header":      {func(d *Doc) { d.Machine.CPUs = 0 }, "header incomplete"},
		"no load":        {func(d *Doc) { d.Machine.LoadAfter = nil }, "load averages [1 2 3] and []"},
		"unmeasured set": {func(d *Doc) { d.Sets[0].Status = NotMeasured }, `status "not_measured"`},
		"goal":           {func(d *Doc) { d.Goals[0].Set = "nowhere" }, `goal "g"`},
	} {
		d := sample()
		tc.spoil(d)
		want := []string{"s", "browser"}
		if name == "missing set" {
			want = append(want, "other")
		}
		if err := Check(d, want, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

func TestEncodeDecodeRoundTripAndRefuseUnknownFields(t *testing.T) {
	b, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "benchmarks.json")
	os.WriteFile(file, b, 0o644)
	d, err := Read(file)
	if err != nil || Check(d, []string{"s"}, 3) != nil {
		t.Fatalf("%v", err)
	}
	os.WriteFile(file, []byte(`{"schema":1,"surprise":true}`), 0o644)
	if _, err := Read(file); err == nil {
		t.Error("an unknown field was accepted")
	}
}
