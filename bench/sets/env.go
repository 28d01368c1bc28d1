// Package sets runs the measurements of the harness, each set a table of
// cells by series in the shape of package schema: in process (the five
// peers on the five requests), HTTPS (jsonrpc in Caddy against Caddy's
// static respond), WebSocket (pipelined calls, broadcast, idle memory, ours
// against go-ethereum), streams over TCP and unix sockets (pipelined calls,
// a method that waits, gRPC-Go, one subscription's items per second, idle
// memory, ours against go-ethereum's IPC server, gRPC-Go and a bare server
// with no JSON-RPC), Go clients (rpcclient against go-ethereum's client,
// calling the same server over WebSocket), nodes (a broadcast over two
// Caddy nodes joined by the NATS hub, against one node with the local
// hub), and the browser set written by another tool.
//
// Every set runs its cells under a Profile (full or quick), reports each
// step to a progress bar, and puts ours next to its peers with the ratio.
package sets

import (
	"context"
	"fmt"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/progress"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Env is what the sets share during a run.
type Env struct {
	Profile Profile
	// Bar shows progress, the sets' work counted in estimated milliseconds.
	Bar *progress.Bar
	// CaddyBin, CaddyConfig and NodesConfig: bin/caddy, Caddyfile.bench and Caddyfile.nodes.
	CaddyBin, CaddyConfig, NodesConfig string
	// Caddy is the group's Caddy, started fresh for each; nil when it could not start, CaddyErr saying why.
	Caddy    *caddyproc.Caddy
	CaddyErr error
	// OpenFiles is the harness's open-files limit (0 for unknown), which caps the memory sets' connections.
	OpenFiles uint64
}

// newSet is a set to measure.
func newSet(id, group, title, harness, note string, metric schema.Metric, xLabel string) schema.Set {
	return schema.Set{ID: id, Group: group, Status: schema.Measured, Title: title, Harness: harness, Note: note,
		Metric: metric, XLabel: xLabel}
}

func failed(s schema.Set, err error) schema.Set {
	s.Status, s.Error = schema.Failed, err.Error()
	s.Series, s.Comparisons = nil, nil
	return s
}

func series(name, label, role, metric, unit string) schema.Series {
	return schema.Series{Name: name, Label: label, Role: role, Metric: metric, Unit: unit}
}

// collector gathers the runs of each (series, metric, cell) in the order measured.
type collector map[string][]float64

func (c collector) add(name, metric, x string, runs ...float64) {
	k := name + "\x00" + metric + "\x00" + x
	c[k] = append(c[k], runs...)
}

func (c collector) fill(s *schema.Set) {
	for i := range s.Series {
		r := &s.Series[i]
		r.Points = r.Points[:0]
		for _, x := range s.Cells {
			if runs, ok := c[r.Name+"\x00"+r.Metric+"\x00"+x]; ok {
				r.Points = append(r.Points, schema.NewPoint(x, runs))
			}
		}
	}
}

// target is one series of a set: a step measures cell i, adding the runs
// of each metric, and weighs work(i) on the bar; start starts a fresh server
// of it, rename names its methods, pipe gives its calls per second on a cell.
type target struct {
	name, label, role string
	work              func(i int) int
	measure           func(i int, add func(metric string, runs ...float64)) error
	rename            func(string) string
	start             func(ctx context.Context) (*server, error)
	pipe              func(ctx context.Context, c pipeCell, w pipeline.Windows) ([]float64, error)
}

func fixed(work int) func(int) int { return func(int) int { return work } }

func (t target) series(metric, unit string) schema.Series {
	return series(t.name, t.label, t.role, metric, unit)
}

// turns measures s: on each of its cells, rounds rounds of a step of every
// target in turn, so that every target meets the same phases of a shared
// machine; with rotate, the order turns by one target each round, so that
// none is timed only right after a particular neighbour.
func (e *Env) turns(s *schema.Set, rounds int, rotate bool, targets []target) error {
	runs := collector{}
	for i, x := range s.Cells {
		for r := range rounds {
			for k := range targets {
				t := targets[k]
				if rotate {
					t = targets[(k+r)%len(targets)]
				}
				label := fmt.Sprintf("%s %d/%d: %s, %s", s.ID, r+1, rounds, x, t.name)
				e.Bar.Start(label)
				err := t.measure(i, func(metric string, v ...float64) { runs.add(t.name, metric, x, v...) })
				e.Bar.Done(t.work(i))
				if err != nil {
					return fmt.Errorf("%s: %w", label, err)
				}
			}
		}
	}
	runs.fill(s)
	return nil
}

func millis(ts []time.Duration) []float64 {
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = float64(t) / float64(time.Millisecond)
	}
	return out
}

func ms(d time.Duration) int { return int(d / time.Millisecond) }

func thousands(n int) string { return english.Sprint(n) }

var english = message.NewPrinter(language.English)

// Count returns "1 run" or "5 runs", with commas from 1,000 on.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}
