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
	for i := range s.Series {
		if s.Series[i].Name == name && s.Series[i].Metric == metric {
			return &s.Series[i]
		}
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

// Point returns the point of cell x, or nil.
func (r *Series) Point(x string) *Point {
	for i := range r.Points {
		if r.Points[i].X == x {
			return &r.Points[i]
		}
	}
	return nil
}

// Value returns the median of series name on cell x of the main metric,
// and whether it exists.
func (s *Set) Value(name, x string) (float64, bool) {
	r := s.SeriesOf(name, s.Metric.Name)
	if r == nil {
		return 0, false
	}
	p := r.Point(x)
	if p == nil || len(p.Runs) == 0 {
		return 0, false
	}
	return p.Median, true
}

// Compare appends the comparisons of series ours with series peer on every
// cell of the main metric that both have.
func (s *Set) Compare(ours, peer string) {
	o, p := s.SeriesOf(ours, s.Metric.Name), s.SeriesOf(peer, s.Metric.Name)
	if o == nil || p == nil {
		return
	}
	for _, x := range s.Cells {
		op, pp := o.Point(x), p.Point(x)
		if op == nil || pp == nil || op.Median <= 0 || pp.Median <= 0 {
			continue
		}
		c := Comparison{X: x, Ours: ours, Peer: peer, OursMedian: op.Median, PeerMedian: pp.Median,
			Ratio: s.advantage(op.Median, pp.Median)}
		c.Low, c.High = c.Ratio, c.Ratio
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
	o, p := s.SeriesOf(ours, s.Metric.Name), s.SeriesOf(peer, s.Metric.Name)
	if o == nil || p == nil {
		return nil
	}
	op, pp := o.Point(x), p.Point(x)
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
	for i := range s.Comparisons {
		c := &s.Comparisons[i]
		if c.Ours == ours && c.Peer == peer && c.X == x {
			return c
		}
	}
	return nil
}

// Find returns the set with the given id, or nil.
func (d *Doc) Find(id string) *Set {
	for i := range d.Sets {
		if d.Sets[i].ID == id {
			return &d.Sets[i]
		}
	}
	return nil
}
