package pipeline

import (
	"context"
	"io"

	"golang.org/x/sync/errgroup"
)

// Closer is a connection Open can open: comparable, so that CloseAll can
// tell the ones set.
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
