package pipeline

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoConn answers each request it is written with the request itself,
// or with "wrong" once wrongAfter answers have gone out.
type echoConn struct {
	mu         sync.Mutex
	cond       *sync.Cond
	queue      [][]byte
	closed     bool
	sent       int
	wrongAfter int
	beforeWait func()
}

func newEchoConn(wrongAfter int) *echoConn {
	c := &echoConn{wrongAfter: wrongAfter}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *echoConn) WriteMany(msgs ...[]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue = append(c.queue, msgs...)
	c.cond.Broadcast()
	return nil
}

func (c *echoConn) ReadMessage([]byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 && c.beforeWait != nil {
		c.beforeWait()
	}
	for len(c.queue) == 0 && !c.closed {
		c.cond.Wait()
	}
	if c.closed {
		return nil, errors.New("closed")
	}
	m := c.queue[0]
	c.queue = c.queue[1:]
	if c.sent++; c.wrongAfter > 0 && c.sent > c.wrongAfter {
		return []byte("wrong"), nil
	}
	return m, nil
}

func (c *echoConn) BeforeReadWait(f func()) {
	c.mu.Lock()
	c.beforeWait = f
	c.mu.Unlock()
}

func (c *echoConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.cond.Broadcast()
	c.mu.Unlock()
	return nil
}

// dialEcho dials echo connections that go wrong after wrongAfter answers.
func dialEcho(wrongAfter int) func(context.Context) (Conn, error) {
	return func(context.Context) (Conn, error) { return newEchoConn(wrongAfter), nil }
}

// sameAnswer accepts answers equal to the request "call".
type sameAnswer struct{}

func (sameAnswer) Check(a []byte) error {
	if string(a) != "call" {
		return errors.New("unexpected answer " + string(a))
	}
	return nil
}

func TestRunCountsCheckedAnswers(t *testing.T) {
	cfg := Config{Conns: 2, Depth: 8, Requests: [][]byte{[]byte("call")}, Expect: sameAnswer{},
		Windows: Windows{Warmup: 10 * time.Millisecond, Length: 30 * time.Millisecond, Count: 3}}
	rates, err := Run(context.Background(), cfg, dialEcho(0))
	if err != nil || len(rates) != 3 {
		t.Fatalf("rates %v, %v", rates, err)
	}
	for _, r := range rates {
		if r <= 0 {
			t.Errorf("rate %v", r)
		}
	}
}

func TestRunFailsOnAWrongAnswer(t *testing.T) {
	cfg := Config{Conns: 1, Depth: 4, Requests: [][]byte{[]byte("call")}, Expect: sameAnswer{},
		Windows: Windows{Warmup: 0, Length: time.Second, Count: 5}}
	_, err := Run(context.Background(), cfg, dialEcho(100))
	if err == nil || !strings.Contains(err.Error(), "unexpected answer wrong") {
		t.Fatalf("error %v, want the wrong answer", err)
	}
}

func TestOpenClosesWhatItOpenedOnAnError(t *testing.T) {
	var opened []*echoConn
	var mu sync.Mutex
	_, err := Open(context.Background(), 10, 1, func(_ context.Context, i int) (*echoConn, error) {
		if i == 5 {
			return nil, errors.New("refused")
		}
		c := newEchoConn(0)
		mu.Lock()
		opened = append(opened, c)
		mu.Unlock()
		return c, nil
	})
	if err == nil || len(opened) != 5 {
		t.Fatalf("%v, %d opened", err, len(opened))
	}
	for _, c := range opened {
		if !c.closed {
			t.Error("a connection left open")
		}
	}
}
