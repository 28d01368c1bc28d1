package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/procfs"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/report"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/sets"
)

// sample is a document with one measured set.
func sample() *schema.Doc {
	s := schema.Set{ID: "ws_memory", Group: "websocket", Title: "Memory", Status: schema.Measured, Harness: "h",
		Metric: schema.Metric{Name: "kib", Unit: "KiB", Better: schema.Lower}, XLabel: "conns", Cells: []string{"10"},
		Series: []schema.Series{
			{Name: "ours", Label: "ours", Role: schema.Ours, Metric: "kib", Points: []schema.Point{schema.NewPoint("10", []float64{20})}},
			{Name: "geth", Label: "geth", Role: schema.Peer, Metric: "kib", Points: []schema.Point{schema.NewPoint("10", []float64{40})}},
		}}
	s.Compare("ours", "geth")
	return &schema.Doc{Schema: schema.Version, Date: "2026-01-02T03:04:05Z", Machine: describeMachine(),
		Harness: schema.Harness{Command: "bench/run"}, Policy: policy(sets.Quick()), Sets: []schema.Set{s},
		Goals: []schema.Goal{{ID: "ws_memory", Set: "ws_memory", Metric: "kib", Target: 16, Text: "≤16 KiB"}}}
}

func TestWritePutsJSONChartsAndPageInTheDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := write(sample(), dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{jsonFile, htmlFile, "charts/ws_memory.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	d, err := schema.Read(filepath.Join(dir, jsonFile))
	if err != nil || d.Sets[0].Comparisons[0].Ratio != 2 {
		t.Fatalf("read back: %v", err)
	}
}

func TestUpdateReadmeRewritesOnlyTheBlock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(file, []byte("# x\n\n"+report.StartMarker+"\nold\n"+report.EndMarker+"\n\nrest\n"), 0o644)
	if err := updateReadme(sample(), file, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(b), "# x\n\n"+report.StartMarker+"\n<!-- Generated") || !strings.HasSuffix(string(b), report.EndMarker+"\n\nrest\n") ||
		strings.Contains(string(b), "old") {
		t.Fatalf("%s", b)
	}
	if err := updateReadme(sample(), file, true); err != nil {
		t.Errorf("check of the block just written: %v", err)
	}
	other := sample()
	other.Harness.Command = "bench/run -only http"
	if err := updateReadme(other, file, true); err == nil {
		t.Error("check passed a block another document generates")
	}
}

func TestSetIDsFollowTheGroups(t *testing.T) {
	got := setIDs(groupNames)
	want := []string{"inprocess", "http", "http_batch", "ws_pipelined", "ws_broadcast", "ws_memory",
		"stream_pipelined", "stream_blocking", "stream_grpc", "stream_flood", "stream_memory", "client_pipelined",
		"nodes_broadcast", "browser"}
	if !slices.Equal(got, want) {
		t.Fatalf("%v", got)
	}
}

func TestMachineAndPolicy(t *testing.T) {
	m := describeMachine()
	if m.CPUs < 1 || m.CPU == "" || len(m.LoadBefore) != 3 {
		t.Errorf("%+v", m)
	}
	if p := policy(sets.Quick()); !strings.Contains(p[len(p)-1], "quick run") {
		t.Errorf("%q", p)
	}
	if p := policy(sets.Full()); strings.Contains(strings.Join(p, " "), "quick run") {
		t.Errorf("%q", p)
	}
}
func TestStealIsTheShareOfStolenTicks(t *testing.T) {
	start := procfs.CPUStat{User: 100, System: 50, Idle: 800, SoftIRQ: 10, Steal: 40, Guest: 7}
	end := procfs.CPUStat{User: 300, System: 100, Idle: 1440, SoftIRQ: 20, Steal: 140, Guest: 9}
	// 1,000 ticks went by (guest ticks not counted twice), 100 of them stolen.
	if got := stolen(&start, &end); got == nil || *got != 0.1 {
		t.Fatalf("steal share: %v", got)
	}
	if stolen(&end, &end) != nil {
		t.Error("a steal share of no time")
	}
	if stolen(nil, &end) != nil {
		t.Error("a steal share from an unreadable start")
	}
	if cpuClock() == nil {
		t.Skip("no /proc/stat here")
	}
}
