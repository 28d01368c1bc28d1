package chart

import (
	"bytes"
	"fmt"
	"image/png"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// set returns a set of two series on three cells.
func set(log bool) *schema.Set {
	s := &schema.Set{ID: "s", Title: "Title", Status: schema.Measured, XLabel: "cell",
		Metric: schema.Metric{Name: "ns", Unit: "ns per call", Better: schema.Lower, Log: log},
		Cells:  []string{"add", "NullableFloatToNullableFloat", "batch of 100, 2 goroutines"}}
	for i, name := range []string{"ours", "geth"} {
		r := schema.Series{Name: name, Label: name, Role: []string{schema.Ours, schema.Peer}[i], Metric: "ns"}
		for j, x := range s.Cells {
			v := float64((j + 1) * (1 + 99*i))
			r.Points = append(r.Points, schema.NewPoint(x, []float64{v, v * 1.1, v * 0.9}))
		}
		s.Series = append(s.Series, r)
	}
	return s
}

func TestPNGDrawsEverySetShape(t *testing.T) {
	goals := []schema.Goal{{Set: "s", Metric: "ns", Target: 50}, {Set: "s", Metric: "ns", Cell: "add", Target: 2}}
	for _, log := range []bool{false, true} {
		b, err := PNG(set(log), goals)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if w := img.Bounds().Dx(); w < 600 || w > 1300 {
			t.Errorf("log=%v: %d pixels wide", log, w)
		}
	}
	crowded := set(true)
	for i := range 12 {
		crowded.Cells = append(crowded.Cells, fmt.Sprint("cell ", i))
	}
	if labelChars(crowded) != 0 || labelChars(set(true)) < 15 {
		t.Errorf("labels: %d characters for 15 cells, %d for 3", labelChars(crowded), labelChars(set(true)))
	}
	if _, err := PNG(crowded, nil); err != nil {
		t.Error(err)
	}
	if _, err := PNG(&schema.Set{ID: "empty", Metric: schema.Metric{Name: "ns"}}, nil); err == nil {
		t.Error("a set without figures was drawn")
	}
}

func TestShortKeepsThreeDigits(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 0.214: "0.214", 0.0123: "0.0123", 3.5: "3.5", 12.34: "12.3", 146.2: "146", 9999: "9999",
		14416: "14.4k", 759599: "760k", 1511457: "1.51M", 2e6: "2M",
	} {
		if got := Short(v); got != want {
			t.Errorf("Short(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestWrapBreaksAtCommasCrossesAndCapitals(t *testing.T) {
	for in, want := range map[string]string{
		"add":                          "add",
		"batch of 100, 2 goroutines":   "batch of 100,\n2 goroutines",
		"NullableFloatToNullableFloat": "NullableFloatTo\nNullableFloat",
		"HTTP/1.1, 64 conns":           "HTTP/1.1,\n64 conns",
		"4 conns × 256 in flight":      "4 conns ×\n256 in flight",
	} {
		if got := wrap(in, 16); got != want {
			t.Errorf("wrap(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLogTicksLabelOneTwoFive(t *testing.T) {
	var labels []string
	for _, tk := range logTicks(10, 1000) {
		labels = append(labels, tk.Label)
	}
	if got := len(labels); got != 7 || labels[0] != "10" || labels[6] != "1000" {
		t.Errorf("%v", labels)
	}
}
