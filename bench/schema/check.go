package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// Encode returns the document as indented JSON, ending in a newline. It
// fails on a NaN or an infinity, which JSON cannot hold: a document read
// back has finite figures only.
func Encode(d *Doc) ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	return append(b, '\n'), err
}

// Check reports every way d falls short: the header filled in; the sets
// named in want present and measured (the browser set may be not yet
// measured); in every measured set, each series with a non-negative figure
// from at least minRuns runs (the browser set: one) in every cell, its
// median, low and high those of its runs, the main metric's figures
// positive, and a comparison for every cell of every peer. It says nothing
// of speed.
func Check(d *Doc, want []string, minRuns int) error {
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if d.Schema != Version || d.Date == "" || d.Machine.CPUs <= 0 || d.Machine.CPU == "" || d.Versions.Go == "" ||
		d.Harness.Command == "" || len(d.Machine.LoadBefore) != 3 || len(d.Machine.LoadAfter) != 3 || len(d.Policy) == 0 {
		fail("header incomplete: schema %d (want %d), date %q, cpu %q × %d, go %q, command %q, load averages %v and %v, %d policy lines",
			d.Schema, Version, d.Date, d.Machine.CPU, d.Machine.CPUs, d.Versions.Go, d.Harness.Command,
			d.Machine.LoadBefore, d.Machine.LoadAfter, len(d.Policy))
	}
	for _, id := range want {
		if s := d.Find(id); s == nil {
			fail("set %s missing", id)
		} else if s.Status != Measured && (s.Status != NotMeasured || s.Group != "browser") {
			fail("set %s: status %q %s", id, s.Status, s.Error)
		}
	}
	for i, s := range d.Sets {
		if s.Status == Measured && s.Group == "browser" {
			errs = append(errs, d.Sets[i].check(1)...)
		} else if s.Status == Measured {
			errs = append(errs, d.Sets[i].check(minRuns)...)
		}
	}
	for _, g := range d.Goals {
		if g.ID == "" || g.Text == "" || d.Find(g.Set) == nil {
			fail("goal %q: incomplete or of no set (set %q)", g.ID, g.Set)
		}
	}
	return errors.Join(errs...)
}

// check reports every way a measured set falls short.
func (s *Set) check(minRuns int) []error {
	var errs []error
	fail := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("set %s: "+format, append([]any{s.ID}, a...)...))
	}
	ours := s.Ours()
	if s.Title == "" || s.Harness == "" || s.Metric.Name == "" || s.Metric.Unit == "" ||
		(s.Metric.Better != Lower && s.Metric.Better != Higher) || len(s.Cells) == 0 || ours == "" {
		fail("title, harness, metric %+v, cells %q or a series of ours on the metric missing", s.Metric, s.Cells)
	}
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
			q := NewPoint(x, p.Runs)
			switch {
			case len(p.Runs) < minRuns || slices.ContainsFunc(p.Runs, func(v float64) bool { return v < 0 }):
				fail("series %s/%s, %q: runs %v, want at least %d and none negative", r.Name, r.Metric, x, p.Runs, minRuns)
			case p.Median != q.Median || p.Low != q.Low || p.High != q.High:
				fail("series %s/%s, %q: low/median/high %v/%v/%v disagree with runs %v",
					r.Name, r.Metric, x, p.Low, p.Median, p.High, p.Runs)
			case r.Metric == s.Metric.Name && p.Median <= 0:
				fail("series %s, %q: %s is %v", r.Name, x, s.Metric.Name, p.Median)
			}
		}
	}
	for _, r := range s.Main() {
		for _, x := range s.Cells {
			if c := s.Comparison(ours, r.Name, x); r.Role != Ours && (c == nil || c.Ratio <= 0) {
				fail("no comparison of %s with %s on %q", ours, r.Name, x)
			}
		}
	}
	return errs
}
