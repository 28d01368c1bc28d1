package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
)

// Read decodes the document in file, refusing fields the schema lacks.
func Read(file string) (*Doc, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Doc
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &d, nil
}

// Encode returns the document as indented JSON, ending in a newline.
func Encode(d *Doc) ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Check reports every way d falls short: the header filled in; the sets
// named in want present and measured (the browser set may be not yet
// measured); in every measured set, each series with a finite, non-negative
// figure from at least minRuns runs in every cell, the main metric's
// figures positive, and a comparison for every cell of every peer. It says
// nothing of speed.
func Check(d *Doc, want []string, minRuns int) error {
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if d.Schema != Version {
		fail("schema %d, want %d", d.Schema, Version)
	}
	if d.Date == "" || d.Machine.CPUs <= 0 || d.Machine.CPU == "" || d.Versions.Go == "" || d.Harness.Command == "" {
		fail("header incomplete: date %q, cpu %q × %d, go %q, command %q",
			d.Date, d.Machine.CPU, d.Machine.CPUs, d.Versions.Go, d.Harness.Command)
	}
	if len(d.Machine.LoadBefore) != 3 || len(d.Machine.LoadAfter) != 3 {
		fail("machine: load averages missing")
	}
	if len(d.Policy) == 0 {
		fail("policy missing")
	}
	for _, id := range want {
		s := d.Find(id)
		switch {
		case s == nil:
			fail("set %s missing", id)
		case s.Status == NotMeasured && s.Group == "browser":
		case s.Status != Measured:
			fail("set %s: status %q %s", id, s.Status, s.Error)
		}
	}
	for i, s := range d.Sets {
		if s.Status == Measured && s.Group == "browser" {
			errs = append(errs, checkSet(&d.Sets[i], 1)...)
		} else if s.Status == Measured {
			errs = append(errs, checkSet(&d.Sets[i], minRuns)...)
		}
	}
	for _, g := range d.Goals {
		if g.ID == "" || g.Text == "" || d.Find(g.Set) == nil || !finite(g.Measured) {
			fail("goal %q: incomplete or not measured (set %q, measured %v)", g.ID, g.Set, g.Measured)
		}
	}
	return errors.Join(errs...)
}

func checkSet(s *Set, minRuns int) []error {
	var errs []error
	fail := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("set %s: "+format, append([]any{s.ID}, a...)...))
	}
	if s.Title == "" || s.Harness == "" || s.Metric.Name == "" || s.Metric.Unit == "" {
		fail("title, harness or metric missing")
	}
	if s.Metric.Better != Lower && s.Metric.Better != Higher {
		fail("metric.better %q", s.Metric.Better)
	}
	if len(s.Cells) == 0 || len(s.Main()) == 0 {
		fail("no cells or no series of %s", s.Metric.Name)
	}
	ours := s.Ours()
	for _, r := range s.Series {
		if !slices.Contains([]string{Ours, Peer, Ceiling, Baseline}, r.Role) {
			fail("series %s: role %q", r.Name, r.Role)
		}
		for _, x := range s.Cells {
			p := r.Point(x)
			if p == nil {
				fail("series %s/%s: no figure for %q", r.Name, r.Metric, x)
				continue
			}
			if len(p.Runs) < minRuns {
				fail("series %s/%s, %q: %d runs, want at least %d", r.Name, r.Metric, x, len(p.Runs), minRuns)
			}
			for _, v := range append([]float64{p.Median, p.Low, p.High}, p.Runs...) {
				if !finite(v) || v < 0 {
					fail("series %s/%s, %q: figure %v", r.Name, r.Metric, x, v)
					break
				}
			}
			if r.Metric == s.Metric.Name && p.Median <= 0 {
				fail("series %s, %q: %s is %v", r.Name, x, s.Metric.Name, p.Median)
			}
			if len(p.Runs) > 0 && (p.Low > p.Median || p.Median > p.High ||
				p.Low != slices.Min(p.Runs) || p.High != slices.Max(p.Runs)) {
				fail("series %s/%s, %q: low/median/high %v/%v/%v disagree with runs %v",
					r.Name, r.Metric, x, p.Low, p.Median, p.High, p.Runs)
			}
		}
	}
	if ours == "" {
		fail("no series of ours")
	}
	for _, r := range s.Main() {
		if r.Role == Ours {
			continue
		}
		for _, x := range s.Cells {
			if c := s.Comparison(ours, r.Name, x); c == nil || !finite(c.Ratio) || c.Ratio <= 0 {
				fail("no comparison of %s with %s on %q", ours, r.Name, x)
			}
		}
	}
	return errs
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
