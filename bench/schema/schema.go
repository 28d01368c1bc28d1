// Package schema is the shape of bench/results/benchmarks.json: a document
// of sets, each a table of cells (the x values) by series (the
// implementations), every cell a Point with the median and the range of its
// timed runs; the comparisons of ours with each peer; the goals the issues
// set; and the machine, versions, harness command and policy of the run.
//
// The document is written by cmd/run and read by the report tools (the
// charts, the HTML page, the README table). Check validates one: every
// measured set complete, every cell a finite number.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Version is the schema version written into Doc.Schema.
const Version = 1

// Doc is one run of the harness.
type Doc struct {
	Schema   int      `json:"schema"`   // Version
	Title    string   `json:"title"`    // names the document
	Date     string   `json:"date"`     // when the run started, RFC 3339 in UTC
	Quick    bool     `json:"quick"`    // a -quick run: every cell once, briefly; its figures say nothing of speed
	Machine  Machine  `json:"machine"`  // describes where the run happened
	Versions Versions `json:"versions"` // names what was measured
	Harness  Harness  `json:"harness"`  // says how the run was made
	Policy   []string `json:"policy"`   // states how cells are measured and how to read the ratios
	Goals    []Goal   `json:"goals"`    // the targets the issues set, each checked against the sets
	Sets     []Set    `json:"sets"`     // the measurements
}

// Machine describes the computer and its state during the run.
type Machine struct {
	CPU        string    `json:"cpu"`  // the processor model
	CPUs       int       `json:"cpus"` // the number of logical CPUs the run could use
	OS         string    `json:"os"`   // OS and Arch are Go's names for the platform
	Arch       string    `json:"arch"`
	MemoryGiB  float64   `json:"memory_gib"`          // the installed memory
	LoadBefore []float64 `json:"load_average_before"` // the 1, 5 and 15 minute load averages at the start
	LoadAfter  []float64 `json:"load_average_after"`  // and at the end of the run: the machine may be shared
	// CPUSteal is the share (0 to 1) of the CPUs' time that the hypervisor
	// gave to other machines during the run (steal, in /proc/stat), if known.
	CPUSteal       *float64 `json:"cpu_steal,omitempty"`
	OpenFilesLimit uint64   `json:"open_files_limit"` // the limit on open files the harness ran under
}

// Versions names the software measured.
type Versions struct {
	Go         string            `json:"go"`                    // the Go release the harness and peers were built with
	Caddy      string            `json:"caddy"`                 // `caddy version` of the binary measured
	CaddyBuilt string            `json:"caddy_built,omitempty"` // when that binary was last written (RFC 3339, UTC)
	Commit     string            `json:"commit"`                // this repository's commit, "-dirty" when files differed
	Modules    map[string]string `json:"modules"`               // the peers' and libraries' module paths and versions
}

// Harness says how the run was made.
type Harness struct {
	Command  string            `json:"command"`  // what was run, from the repository root
	Seconds  float64           `json:"seconds"`  // how long the whole run took
	Settings map[string]string `json:"settings"` // the durations and counts of the run's profile
}

// Set is one table of measurements: cells by series, one metric drawn.
type Set struct {
	ID          string       `json:"id"`                    // names the set in files (charts/<id>.png) and in goals
	Group       string       `json:"group"`                 // inprocess, http, websocket, stream, client, nodes, browser
	Title       string       `json:"title"`                 // the heading shown above the set
	Status      string       `json:"status"`                // Measured, NotMeasured or Failed
	Harness     string       `json:"harness"`               // says what served the requests and how they were sent
	Note        string       `json:"note,omitempty"`        // adds what a reader needs to read the figures right
	Metric      Metric       `json:"metric"`                // the set's main metric, the one the chart draws
	XLabel      string       `json:"x_label"`               // names what the cells vary
	Cells       []string     `json:"cells"`                 // the x values, in the order shown
	Series      []Series     `json:"series"`                // the measurements, one per implementation and metric
	Comparisons []Comparison `json:"comparisons,omitempty"` // put ours next to each peer, cell by cell
	Error       string       `json:"error,omitempty"`       // says why a Failed set failed
	CPUSteal    *float64     `json:"cpu_steal,omitempty"`   // Machine.CPUSteal while this set (or its group) ran
	Source      any          `json:"source,omitempty"`      // a set written by another tool in another shape, kept
}

// Set statuses.
const (
	Measured    = "measured"
	NotMeasured = "not_measured"
	Failed      = "failed"
)

// Metric is what a series measures.
type Metric struct {
	Name   string `json:"name"`          // the key series refer to, for example "ns_per_call"
	Unit   string `json:"unit"`          // the unit as shown, for example "ns per call"
	Better string `json:"better"`        // "lower" or "higher"
	Log    bool   `json:"log,omitempty"` // draws the chart on a logarithmic axis
}

// Directions of Metric.Better.
const (
	Lower  = "lower"
	Higher = "higher"
)

// Series is one implementation's figures for one metric.
type Series struct {
	Name   string  `json:"name"`   // identifies the implementation: "ours", "geth", "respond", ...
	Label  string  `json:"label"`  // the legend text
	Role   string  `json:"role"`   // Ours, Peer, Ceiling or Baseline
	Metric string  `json:"metric"` // the Metric's name: the set's main one or a secondary one
	Unit   string  `json:"unit"`   // the metric's unit as shown
	Points []Point `json:"points"` // one figure per cell, in the set's cell order
}

// Series roles: this project; another JSON-RPC implementation; what the
// server does with no JSON-RPC at all (Caddy's static respond); this project
// measured another way, to compare against (one call per POST for batches).
const (
	Ours     = "ours"
	Peer     = "peer"
	Ceiling  = "ceiling"
	Baseline = "baseline"
)

// Point is one cell's figure: the median of its timed runs and their range.
type Point struct {
	X      string    `json:"x"`      // the cell
	Median float64   `json:"median"` // Median, Low and High are the median, lowest and highest of Runs
	Low    float64   `json:"low"`
	High   float64   `json:"high"`
	Runs   []float64 `json:"runs"` // the figure of every timed run, in order
}

// Comparison is ours against a peer on one cell of the main metric.
type Comparison struct {
	X          string  `json:"x"`    // the cell
	Ours       string  `json:"ours"` // Ours and Peer name the two series
	Peer       string  `json:"peer"`
	OursMedian float64 `json:"ours_median"` // OursMedian and PeerMedian are their medians
	PeerMedian float64 `json:"peer_median"`
	// Ratio is how many times better ours is: peer ÷ ours when lower is
	// better, ours ÷ peer when higher is; above 1, ours is ahead. Low and
	// High are its worst and best over the runs paired in order (the n-th
	// run of each, measured close together).
	Ratio float64 `json:"ratio"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Goal is a target from an issue, checked against the run.
type Goal struct {
	ID    string `json:"id"`    // names the goal
	Issue int    `json:"issue"` // the number of the issue that set it; 0 when none is recorded
	Text  string `json:"text"`  // states the goal
	Set   string `json:"set"`   // the set it is read from
	// Metric, when the goal is a threshold on the set's main metric (not a
	// ratio), names it, and Cell the one cell it applies to ("" for all):
	// the charts draw such goals.
	Metric   string  `json:"metric,omitempty"`
	Cell     string  `json:"cell,omitempty"`
	Target   float64 `json:"target"`   // the threshold, in Unit
	Measured float64 `json:"measured"` // the figure compared with Target, in Unit
	Unit     string  `json:"unit"`     // what Target and Measured count
	Met      bool    `json:"met"`      // true when Measured reaches Target
	Detail   string  `json:"detail"`   // says which cells the figure comes from, and the others
}

// NewPoint summarises the runs of cell x. With no runs it is all zeros and
// Check rejects it.
func NewPoint(x string, runs []float64) Point {
	p := Point{X: x, Runs: slices.Clone(runs)}
	if len(runs) > 0 {
		p.Median, p.Low, p.High = Median(runs), slices.Min(runs), slices.Max(runs)
	}
	return p
}

// Median returns the median of v (the mean of the middle two for an even
// count), benchmath's center of v; NaN when v is empty.
func Median(v []float64) float64 {
	s := benchmath.NewSample(slices.Clone(v), &benchmath.DefaultThresholds) // NewSample sorts its values
	return benchmath.AssumeNothing.Summary(s, 0.95).Center
}

// SeriesOf returns the series named name measuring metric, or nil.
func (s *Set) SeriesOf(name, metric string) *Series {
	return find(s.Series, func(r Series) bool { return r.Name == name && r.Metric == metric })
}

func find[T any](v []T, f func(T) bool) *T {
	if i := slices.IndexFunc(v, f); i >= 0 {
		return &v[i]
	}
	return nil
}

// Main returns the series of the set's main metric, in order.
func (s *Set) Main() []*Series {
	var out []*Series
	for i := range s.Series {
		if s.Series[i].Metric == s.Metric.Name {
			out = append(out, &s.Series[i])
		}
	}
	return out
}

// Ours returns the name of the set's first series of ours on the main
// metric, the one its comparisons put the others beside; "" for none.
func (s *Set) Ours() string {
	if r := find(s.Series, func(r Series) bool { return r.Role == Ours && r.Metric == s.Metric.Name }); r != nil {
		return r.Name
	}
	return ""
}

// Point returns the point of cell x, or nil (also for a nil series).
func (r *Series) Point(x string) *Point {
	if r == nil {
		return nil
	}
	return find(r.Points, func(p Point) bool { return p.X == x })
}

// Value returns the median of series name on cell x of the main metric,
// and whether it exists.
func (s *Set) Value(name, x string) (float64, bool) {
	p := s.SeriesOf(name, s.Metric.Name).Point(x)
	if p == nil || len(p.Runs) == 0 {
		return 0, false
	}
	return p.Median, true
}

// Compare appends the comparisons of series ours with series peer on every
// cell of the main metric that both have.
func (s *Set) Compare(ours, peer string) {
	for _, x := range s.Cells {
		o, _ := s.Value(ours, x)
		p, _ := s.Value(peer, x)
		if o <= 0 || p <= 0 {
			continue
		}
		r := s.advantage(o, p)
		c := Comparison{X: x, Ours: ours, Peer: peer, OursMedian: o, PeerMedian: p, Ratio: r, Low: r, High: r}
		if paired := s.Paired(ours, peer, x); len(paired) > 0 {
			c.Low, c.High = slices.Min(paired), slices.Max(paired)
		}
		s.Comparisons = append(s.Comparisons, c)
	}
}

// Paired returns how many times better series ours is than series peer on
// cell x of the main metric, run by run: the n-th run of each (measured
// close together) make a pair.
func (s *Set) Paired(ours, peer, x string) []float64 {
	op, pp := s.SeriesOf(ours, s.Metric.Name).Point(x), s.SeriesOf(peer, s.Metric.Name).Point(x)
	if op == nil || pp == nil {
		return nil
	}
	var paired []float64
	for i := range min(len(op.Runs), len(pp.Runs)) {
		if op.Runs[i] > 0 && pp.Runs[i] > 0 {
			paired = append(paired, s.advantage(op.Runs[i], pp.Runs[i]))
		}
	}
	return paired
}

// advantage is how many times better ours is than peer on the set's metric.
func (s *Set) advantage(ours, peer float64) float64 {
	if s.Metric.Better == Higher {
		return ours / peer
	}
	return peer / ours
}

// Comparison returns the comparison of ours with peer on cell x, or nil.
func (s *Set) Comparison(ours, peer, x string) *Comparison {
	return find(s.Comparisons, func(c Comparison) bool { return c.Ours == ours && c.Peer == peer && c.X == x })
}

// Find returns the set with the given id, or nil.
func (d *Doc) Find(id string) *Set {
	return find(d.Sets, func(s Set) bool { return s.ID == id })
}

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

// Check reports every way d falls short: the header filled in; the sets in
// want present and measured (the browser set may be not yet measured); in
// every measured set, every cell of every series with at least minRuns runs
// (the browser set: one), none negative, its median, low and high those of
// its runs, the main metric's figures positive and compared with every peer.
// It says nothing of speed.
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
	for i := range d.Sets {
		if d.Sets[i].Status == Measured {
			d.Sets[i].check(minRuns, fail)
		}
	}
	for _, g := range d.Goals {
		if g.ID == "" || g.Text == "" || d.Find(g.Set) == nil {
			fail("goal %q: incomplete or of no set (set %q)", g.ID, g.Set)
		}
	}
	return errors.Join(errs...)
}

// check reports through fail every way a measured set falls short.
func (s *Set) check(minRuns int, failDoc func(string, ...any)) {
	fail := func(format string, a ...any) { failDoc("set %s: "+format, append([]any{s.ID}, a...)...) }
	if s.Group == "browser" {
		minRuns = 1
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
		main := r.Metric == s.Metric.Name
		for _, x := range s.Cells {
			if c := s.Comparison(ours, r.Name, x); main && r.Role != Ours && (c == nil || c.Ratio <= 0) {
				fail("no comparison of %s with %s on %q", ours, r.Name, x)
			}
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
			case main && p.Median <= 0:
				fail("series %s, %q: %s is %v", r.Name, x, s.Metric.Name, p.Median)
			}
		}
	}
}
