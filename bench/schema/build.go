package schema

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// NewPoint summarises the runs of cell x. With no runs it is all zeros and
// Check rejects it.
func NewPoint(x string, runs []float64) Point {
	p := Point{X: x, Runs: slices.Clone(runs)}
	if len(runs) == 0 {
		return p
	}
	p.Median = Median(runs)
	p.Low, p.High = slices.Min(runs), slices.Max(runs)
	return p
}

// Median returns the median of v (the mean of the middle two for an even
// count), benchmath's center of v; NaN when v is empty.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := benchmath.NewSample(slices.Clone(v), &benchmath.DefaultThresholds) // NewSample sorts its values
	return benchmath.AssumeNothing.Summary(s, 0.95).Center
}

// SeriesOf returns the series named name measuring metric, or nil.
func (s *Set) SeriesOf(name, metric string) *Series {
	return find(s.Series, func(r Series) bool { return r.Name == name && r.Metric == metric })
}

// find returns the first element of v that f accepts, or nil.
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
		o, ok := s.Value(ours, x)
		p, okp := s.Value(peer, x)
		if !ok || !okp || o <= 0 || p <= 0 {
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
