package rpcclient

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// heldConn is a connection whose flushes wait until the test lets them go,
// and which answers every call it was written (with the call's id as its
// result) once its flush is let go.
type heldConn struct {
	mu      sync.Mutex
	written [][]byte
	flushes []int // messages written in each flush
	release chan struct{}
	answers chan []byte
	closed  chan struct{}
	once    sync.Once
}

func newHeldConn() *heldConn {
	return &heldConn{release: make(chan struct{}), answers: make(chan []byte, 4096), closed: make(chan struct{})}
}

func (h *heldConn) WriteMessage(_ context.Context, msg []byte) error {
	h.mu.Lock()
	h.written = append(h.written, append([]byte(nil), msg...))
	h.mu.Unlock()
	return nil
}

func (h *heldConn) Flush(ctx context.Context) error {
	select {
	case <-h.release:
	case <-h.closed:
		return fmt.Errorf("closed")
	case <-ctx.Done(): // the client closes: a failed test ends, not hangs
		return ctx.Err()
	}
	h.mu.Lock()
	msgs := h.written
	h.written = nil
	h.flushes = append(h.flushes, len(msgs))
	h.mu.Unlock()
	for _, m := range msgs {
		id := idOf(string(m))
		h.answers <- []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + id + `}`)
	}
	return nil
}

func (h *heldConn) ReadMessage(_ context.Context, dst []byte) ([]byte, error) {
	select {
	case a := <-h.answers:
		return append(dst, a...), nil
	case <-h.closed:
		return dst, fmt.Errorf("closed")
	}
}

func (h *heldConn) Close() error {
	h.once.Do(func() { close(h.closed) })
	return nil
}

func TestCallsMadeDuringAWriteLeaveTogether(t *testing.T) {
	c, err := newClient(defaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	conn := newHeldConn()
	c.dial = func(context.Context) (messageConn, error) { return nil, fmt.Errorf("no redial in this test") }
	c.start(conn)
	defer c.Close()
	ctx := testContext(t)
	first := make(chan error, 1)
	go func() { first <- c.Call(ctx, nil, "first") }()
	// The first call's flush is under way (held); 100 more are made.
	for {
		conn.mu.Lock()
		n := len(conn.written)
		conn.mu.Unlock()
		if n == 1 {
			break
		}
		runtime.Gosched()
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Go(func() {
			if err := c.Call(ctx, nil, "more"); err != nil {
				errs <- err
			}
		})
	}
	for queued := 0; queued < 100; runtime.Gosched() { // in the table is not yet in the queue
		c.queue.mu.Lock()
		queued = len(c.queue.msgs)
		c.queue.mu.Unlock()
	}
	conn.release <- struct{}{} // the first flush goes
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	conn.release <- struct{}{} // the next carries every call made meanwhile
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if len(conn.flushes) != 2 || conn.flushes[0] != 1 || conn.flushes[1] != 100 {
		t.Fatalf("messages per flush: %v", conn.flushes)
	}
}
