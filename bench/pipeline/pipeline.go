// Package pipeline drives pipelined calls over connections of any transport
// (msgload's): a fixed number of calls in flight on each of a fixed number of
// connections, every answer checked, calls per second over timed windows;
// and opens many connections at once (Open, Call).
package pipeline

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// Conn is one client connection.
type Conn interface {
	// WriteMany writes the messages in one network write.
	WriteMany(msgs ...[]byte) error
	// ReadMessage reads the next answer, into dst when it fits.
	ReadMessage(dst []byte) ([]byte, error)
	// BeforeReadWait sets f, called on the reading goroutine each time
	// ReadMessage is about to read the network because nothing it read
	// before is left, which may wait for the server.
	BeforeReadWait(f func())
	// Close closes the connection, which ends a read under way.
	Close() error
}

// Checker checks one answer.
type Checker interface {
	Check(answer []byte) error
}

// Config describes one pipelined run.
type Config struct {
	Conns int // the number of connections, dialled 16 at a time
	// Depth is the number of calls in flight on each connection: a new call
	// is written as soon as an answer comes back, and calls written
	// together go out in one network write.
	Depth    int
	Requests [][]byte // sent in turn on every connection
	Expect   Checker  // checks every answer
	Windows  Windows  // times the run, on the same connections throughout
}

// Run dials cfg.Conns connections with dial, drives cfg over them, closes
// them and returns the calls per second of each window. Any wrong answer or
// failed connection ends it with an error.
func Run(ctx context.Context, cfg Config, dial func(ctx context.Context) (Conn, error)) ([]float64, error) {
	conns, err := Open(ctx, cfg.Conns, 16, func(ctx context.Context, _ int) (Conn, error) { return dial(ctx) })
	if err != nil {
		return nil, err
	}
	g := NewGroup(ctx)
	defer g.Stop(func() { CloseAll(conns) })
	runs := make([]*piper, len(conns))
	for i, c := range conns {
		runs[i] = &piper{c: c, cfg: &cfg, g: g, wake: make(chan struct{}, 1), done: make(chan struct{})}
		g.Go(runs[i].readLoop)
		g.Go(runs[i].writeLoop)
	}
	return cfg.Windows.Rates(g.Ctx, func() (n int64) {
		for _, p := range runs {
			n += p.answered.Load()
		}
		return n
	})
}

// piper drives one connection of a pipelined run.
type piper struct {
	c        Conn
	cfg      *Config
	g        *Group
	inflight atomic.Int64
	answered atomic.Int64
	wake     chan struct{} // the reader made room
	done     chan struct{} // the reader ended
}

// writeLoop tops the connection up to Depth calls in flight, writing the
// missing ones together.
func (p *piper) writeLoop() error {
	reqs := p.cfg.Requests
	batch := make([][]byte, 0, p.cfg.Depth)
	j := 0
	for !p.g.Stopping() {
		room := int64(p.cfg.Depth) - p.inflight.Load()
		if room <= 0 {
			select {
			case <-p.wake:
			case <-p.done:
				return nil
			}
			continue
		}
		batch = batch[:0]
		for range room {
			batch = append(batch, reqs[j])
			if j++; j == len(reqs) {
				j = 0
			}
		}
		p.inflight.Add(room)
		if err := p.c.WriteMany(batch...); err != nil {
			return fmt.Errorf("pipeline: write: %w", err)
		}
	}
	return nil
}

// readLoop checks and counts answers, and wakes the writer when it has
// drained what arrived (before its next read waits) or half the window is
// free. Answers are counted in the shared counters every countEvery of
// them and before each wait, not one by one.
func (p *piper) readLoop() error {
	defer close(p.done)
	half := int64(p.cfg.Depth / 2)
	var uncounted int64
	count := func() {
		if uncounted > 0 {
			p.answered.Add(uncounted)
			left := p.inflight.Add(-uncounted)
			uncounted = 0
			if left <= half {
				p.wakeWriter()
			}
		}
	}
	p.c.BeforeReadWait(func() {
		count()
		p.wakeWriter()
	})
	var buf []byte
	for {
		msg, err := p.c.ReadMessage(buf)
		if err != nil {
			return fmt.Errorf("pipeline: read: %w", err)
		}
		buf = msg
		if err := p.cfg.Expect.Check(msg); err != nil {
			return err
		}
		if uncounted++; uncounted >= countEvery {
			count()
		}
	}
}

// countEvery is how many answers a reader counts before it adds them to
// the shared counters.
const countEvery = 16

// wakeWriter tells the writer there is room, unless it was told already.
func (p *piper) wakeWriter() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Group is the goroutines of one measurement and its context, Ctx, which
// the measurement's waits (Windows.Rates, Wait) take. Until the group
// stops, the first error of any of them ends Ctx, and is its cause; once it
// stops, Ctx is done, and their errors come from its closing and are
// dropped.
type Group struct {
	Ctx     context.Context
	cancel  context.CancelCauseFunc
	stopped atomic.Bool
	wg      sync.WaitGroup
}

// NewGroup returns a group with no goroutines, whose Ctx ends with ctx.
func NewGroup(ctx context.Context) *Group {
	g := &Group{}
	g.Ctx, g.cancel = context.WithCancelCause(ctx)
	return g
}

// Go runs f in a goroutine of g; its error, if any, fails g.
func (g *Group) Go(f func() error) {
	g.wg.Go(func() {
		if err := f(); err != nil {
			g.Fail(err)
		}
	})
}

// Fail ends Ctx with err, unless g is stopping or Ctx has ended.
func (g *Group) Fail(err error) {
	if !g.Stopping() {
		g.cancel(err)
	}
}

// Stopping reports whether Stop was called.
func (g *Group) Stopping() bool { return g.stopped.Load() }

// Stop marks g stopping and ends Ctx, calls end, which must end its
// goroutines (by closing their connections), and waits for them.
func (g *Group) Stop(end func()) {
	g.stopped.Store(true)
	g.cancel(context.Canceled)
	end()
	g.wg.Wait()
}

// Closer is a connection Open can open, comparable so that CloseAll can tell
// the ones set.
type Closer interface {
	comparable
	io.Closer
}

// Open opens n connections with open (i is the connection's index),
// parallel at a time. On the first error it stops, closes those it opened
// and returns the error.
func Open[C Closer](ctx context.Context, n, parallel int, open func(ctx context.Context, i int) (C, error)) ([]C, error) {
	conns := make([]C, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, parallel))
	for i := range n {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err // an open failed: open no more
			}
			c, err := open(ctx, i)
			if err == nil {
				conns[i] = c
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		CloseAll(conns)
		return nil, err
	}
	return conns, nil
}

// CloseAll closes every connection of conns that is set.
func CloseAll[C Closer](conns []C) {
	var none C
	for _, c := range conns {
		if c != none {
			c.Close()
		}
	}
}

// Call writes req on c and checks its answer with expect.
func Call(c Conn, req []byte, expect Checker) error {
	if err := c.WriteMany(req); err != nil {
		return err
	}
	msg, err := c.ReadMessage(nil)
	if err != nil {
		return err
	}
	return expect.Check(msg)
}

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
