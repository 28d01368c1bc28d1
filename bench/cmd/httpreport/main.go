// Command httpreport reads the JSON lines printed by cmd/load, labelled
// "<proto>:<target>:<kind>" (for example "h2:rpc:batch100"), and prints a
// Markdown table per protocol: the median over the runs of each cell,
// jsonrpc against respond for one call per POST (of the medians, and round
// by round, pairing the n-th run of each), and the batch's calls/s against
// one call per POST.
//
//	httpreport < results.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// line is the part of cmd/load's output the report reads.
type line struct {
	Label          string  `json:"label"`
	Proto          string  `json:"proto"`
	Conns          int     `json:"conns"`
	RequestsPerSec float64 `json:"requests_per_s"`
	CallsPerSec    float64 `json:"calls_per_s"`
	Errors         int64   `json:"errors"`
	Latency        struct {
		P50 float64 `json:"p50_ms"`
		P90 float64 `json:"p90_ms"`
		P99 float64 `json:"p99_ms"`
	} `json:"latency"`
}

// cell gathers the runs of one label.
type cell struct{ runs []line }

// median returns the run with the median requests/s.
func (c *cell) median() line {
	if c == nil || len(c.runs) == 0 {
		return line{}
	}
	runs := slices.Clone(c.runs)
	slices.SortFunc(runs, func(a, b line) int {
		switch {
		case a.RequestsPerSec < b.RequestsPerSec:
			return -1
		case a.RequestsPerSec > b.RequestsPerSec:
			return 1
		}
		return 0
	})
	return runs[len(runs)/2]
}

func main() {
	cells, protos, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpreport:", err)
		os.Exit(1)
	}
	report(os.Stdout, cells, protos)
}

// read gathers the lines of r by label, and the protocols in order seen.
func read(r io.Reader) (map[string]*cell, []string, error) {
	cells := map[string]*cell{}
	var protos []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, nil, err
		}
		proto, _, _ := strings.Cut(l.Label, ":")
		if !slices.Contains(protos, proto) {
			protos = append(protos, proto)
		}
		if cells[l.Label] == nil {
			cells[l.Label] = &cell{}
		}
		cells[l.Label].runs = append(cells[l.Label].runs, l)
	}
	return cells, protos, sc.Err()
}

// report prints the table.
func report(w io.Writer, cells map[string]*cell, protos []string) {
	fmt.Fprintln(w, "| protocol | conns | respond req/s | jsonrpc req/s | jsonrpc ÷ respond | batch100 req/s | batch100 RPC/s | batch RPC/s ÷ single RPC/s | jsonrpc ÷ respond by round | p50 / p99 ms (respond, jsonrpc, batch) |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, p := range protos {
		st, rpc, batch := cells[p+":static:single"].median(), cells[p+":rpc:single"].median(), cells[p+":rpc:batch100"].median()
		fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %s | %.0f | %.0f | %s | %s | %s, %s, %s |\n",
			rpc.Proto, rpc.Conns, st.RequestsPerSec, rpc.RequestsPerSec, ratio(rpc.RequestsPerSec, st.RequestsPerSec),
			batch.RequestsPerSec, batch.CallsPerSec, ratio(batch.CallsPerSec, rpc.CallsPerSec),
			byRound(cells[p+":rpc:single"], cells[p+":static:single"]), lat(st), lat(rpc), lat(batch))
	}
}

// ratio formats a / b, or "n/a".
func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// lat formats a run's p50 and p99.
func lat(l line) string { return fmt.Sprintf("%.2f / %.2f", l.Latency.P50, l.Latency.P99) }

// byRound formats the ratio of a's n-th run to b's, for every n.
func byRound(a, b *cell) string {
	if a == nil || b == nil {
		return "n/a"
	}
	var out []string
	for i := range min(len(a.runs), len(b.runs)) {
		out = append(out, ratio(a.runs[i].RequestsPerSec, b.runs[i].RequestsPerSec))
	}
	return strings.Join(out, ", ")
}
