package sets

import (
	"fmt"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/progress"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// Env is what the sets share during a run.
type Env struct {
	Profile Profile
	// Bar shows progress; every set counts its work on it, in estimated
	// milliseconds.
	Bar *progress.Bar
	// CaddyBin and CaddyConfig are bin/caddy and Caddyfile.bench;
	// NodesConfig is Caddyfile.nodes, the nodes set's.
	CaddyBin, CaddyConfig, NodesConfig string
	// Caddy is the Caddy the running group of sets measures, started
	// fresh for each group; nil when it could not start, with CaddyErr
	// saying why.
	Caddy    *caddyproc.Caddy
	CaddyErr error
}

// failed returns s marked Failed because of err.
func failed(s schema.Set, err error) schema.Set {
	s.Status = schema.Failed
	s.Error = err.Error()
	s.Series, s.Comparisons = nil, nil
	return s
}

func series(name, label, role, metric, unit string) schema.Series {
	return schema.Series{Name: name, Label: label, Role: role, Metric: metric, Unit: unit}
}

// collector gathers the runs of each (series, metric, cell) in the order
// they are measured, and builds the points from them.
type collector map[string][]float64

func (c collector) add(name, metric, x string, v float64) {
	k := name + "\x00" + metric + "\x00" + x
	c[k] = append(c[k], v)
}

// fill gives every series of s a point per cell from the runs recorded.
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

// ms is d in milliseconds.
func ms(d time.Duration) int { return int(d / time.Millisecond) }

// thousands formats n with commas: 10,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Count returns "1 run" or "5 runs", with commas from 1,000 on.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}
