package report

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// The markers around the generated block in README.md.
const (
	StartMarker = "<!-- bench:start -->"
	EndMarker   = "<!-- bench:end -->"
)

// ReadmeBlock is the Markdown of the README's performance block for d,
// without the markers: the run's header, the goals, and a table per set.
func ReadmeBlock(d *schema.Doc) string {
	var b strings.Builder
	b.WriteString("<!-- Generated from bench/results/benchmarks.json by bench/run (or `cd bench && go run ./cmd/run -readmetable`); do not edit by hand. -->\n\n")
	fmt.Fprintf(&b, "Measured by `%s` on %s: %s, %d CPUs, %s, Caddy %s (bin/caddy built %s), commit %s; load average %s before the run and %s after; CPU steal %s; %s in all.",
		d.Harness.Command, day(d.Date), d.Machine.CPU, d.Machine.CPUs, d.Versions.Go, d.Versions.Caddy,
		cmp.Or(d.Versions.CaddyBuilt, "unknown"), d.Versions.Commit, load(d.Machine.LoadBefore), load(d.Machine.LoadAfter),
		Steal(d.Machine.CPUSteal), duration(d.Harness.Seconds))
	b.WriteString(" CPU steal is the share of the CPUs' time the hypervisor gave to other machines (/proc/stat): " +
		"a run, or a set, with much of it measured a slower machine.")
	b.WriteString(" Charts, ranges and every run: [bench/results/index.html](bench/results/index.html);" +
		" data: [bench/results/benchmarks.json](bench/results/benchmarks.json); how it is measured: [bench/README.md](bench/README.md).\n")
	if d.Quick {
		b.WriteString("\n**A quick run: every cell timed once, briefly. These figures say nothing of speed.**\n")
	}
	b.WriteString("\n" + GoalsTable(d, false).Markdown())
	for i := range d.Sets {
		s := &d.Sets[i]
		fmt.Fprintf(&b, "\n**%s**", s.Title)
		if s.Status != schema.Measured {
			fmt.Fprintf(&b, ": %s.\n", statusLine(s))
			continue
		}
		t := MainTable(s, false)
		fmt.Fprintf(&b, " (%s; CPU steal %s)\n\n%s", t.Caption, Steal(s.CPUSteal), t.Markdown())
	}
	return b.String()
}

// statusLine says why a set has no figures.
func statusLine(s *schema.Set) string {
	switch {
	case s.Status == schema.Failed:
		return "failed: " + s.Error
	case s.Note != "":
		return s.Note
	}
	return "not yet measured"
}

// ReplaceBlock returns readme with the text between the markers replaced
// by block.
func ReplaceBlock(readme, block string) (string, error) {
	before, rest, ok := strings.Cut(readme, StartMarker+"\n")
	if !ok {
		return "", errors.New("README.md has no " + StartMarker + " marker")
	}
	if _, after, ok := strings.Cut(rest, EndMarker); ok {
		return before + StartMarker + "\n" + block + EndMarker + after, nil
	}
	return "", errors.New("README.md has no " + EndMarker + " marker after " + StartMarker)
}

func day(date string) string {
	d, _, _ := strings.Cut(date, "T")
	return d
}

// load formats a 1/5/15-minute load average.
func load(l []float64) string {
	if len(l) != 3 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f/%.2f/%.2f", l[0], l[1], l[2])
}

// duration formats seconds as "8 min 12 s".
func duration(s float64) string {
	n := int(s + 0.5)
	if n < 60 {
		return fmt.Sprintf("%d s", n)
	}
	return fmt.Sprintf("%d min %d s", n/60, n%60)
}
