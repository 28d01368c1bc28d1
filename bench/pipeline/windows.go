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
// over each window. An error on failed or the end of ctx ends it.
func (w Windows) Rates(ctx context.Context, failed <-chan error, total func() int64) ([]float64, error) {
	if err := Wait(ctx, failed, w.Warmup); err != nil {
		return nil, err
	}
	out := make([]float64, 0, w.Count)
	n0, t0 := total(), time.Now()
	for range w.Count {
		if err := Wait(ctx, failed, w.Length); err != nil {
			return nil, err
		}
		n1, t1 := total(), time.Now()
		if n1 == n0 {
			return nil, fmt.Errorf("pipeline: nothing counted for %v", t1.Sub(t0))
		}
		out = append(out, float64(n1-n0)/t1.Sub(t0).Seconds())
		n0, t0 = n1, t1
	}
	return out, nil
}

// Wait waits d, or less for an error on failed or the end of ctx, which it
// returns.
func Wait(ctx context.Context, failed <-chan error, d time.Duration) error {
	select {
	case err := <-failed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Valid reports whether w times at least one window.
func (w Windows) Valid() bool { return w.Count >= 1 && w.Length > 0 }
