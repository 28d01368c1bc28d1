package pipeline

import (
	"context"
	"fmt"
	"time"
)

// Windows describes the timing of a run: a warm-up, then Count windows of
// Length, one after another.
type Windows struct {
	Warmup time.Duration
	Length time.Duration
	Count  int
}

// Rates waits out w's warm-up, then returns the growth of total per second
// over each window. The end of ctx ends it with its cause.
func (w Windows) Rates(ctx context.Context, total func() int64) ([]float64, error) {
	growth, err := w.Growth(ctx, func() ([]float64, error) { return []float64{float64(total())}, nil })
	out := make([]float64, len(growth))
	for i, g := range growth {
		out[i] = g[0]
	}
	return out, err
}

// Growth waits out w's warm-up, then reads the counters at the start of
// the first window and at the end of each, and returns each window's growth
// of each counter per second. The first counter must grow in every window.
// An error of read or the end of ctx ends it.
func (w Windows) Growth(ctx context.Context, read func() ([]float64, error)) ([][]float64, error) {
	if err := Wait(ctx, w.Warmup); err != nil {
		return nil, err
	}
	var out [][]float64
	v0, err := read()
	t0 := time.Now()
	for range w.Count {
		if err == nil {
			err = Wait(ctx, w.Length)
		}
		if err != nil {
			return nil, err
		}
		v1, err := read()
		t1 := time.Now()
		if err == nil && v1[0] == v0[0] {
			err = fmt.Errorf("pipeline: nothing counted for %v", t1.Sub(t0))
		}
		if err != nil {
			return nil, err
		}
		g := make([]float64, len(v1))
		for i := range v1 {
			g[i] = (v1[i] - v0[i]) / t1.Sub(t0).Seconds()
		}
		out, v0, t0 = append(out, g), v1, t1
	}
	return out, nil
}

// Wait waits d, or less for the end of ctx, whose cause it returns.
func Wait(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(d):
		return nil
	}
}
