package rpccore_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// written is a message a heldConn wrote, and how: "direct" by TryFlush,
// "flush" by Flush.
type written struct {
	msg, how string
}

// heldConn is a MessageConn that holds written messages until Flush or
// TryFlush, as the stream and WebSocket connections do. TryFlush does what
// try says: "all" writes everything, "none" nothing, "fail" fails.
type heldConn struct {
	in  chan []byte
	out chan written
	try string

	mu   sync.Mutex
	held []string
}

func newHeldConn(try string) *heldConn {
	return &heldConn{in: make(chan []byte, 16), out: make(chan written, 64), try: try}
}

func (c *heldConn) ReadMessage(ctx context.Context, dst []byte) ([]byte, error) {
	select {
	case m, ok := <-c.in:
		if !ok {
			return dst, io.EOF
		}
		return append(dst, m...), nil
	case <-ctx.Done():
		return dst, ctx.Err()
	}
}

func (c *heldConn) WriteMessage(_ context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = append(c.held, string(msg))
	return nil
}

// release writes what is held, marked how; c.mu is held.
func (c *heldConn) release(how string) {
	for _, m := range c.held {
		c.out <- written{m, how}
	}
	c.held = c.held[:0]
}

func (c *heldConn) Flush(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.release("flush")
	return nil
}

var errTryFailed = errors.New("the socket failed")

func (c *heldConn) TryFlush() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.try {
	case "all":
		c.release("direct")
		return true, nil
	case "fail":
		return false, errTryFailed
	}
	return false, nil
}

// notifyServer serves "poke", which notifies the caller before it answers.
func notifyServer(t *testing.T) *rpccore.Server {
	t.Helper()
	s := rpccore.NewServer()
	err := s.RegisterMethods(rpccore.Methods{
		"poke": rpccore.Func0(func(ctx context.Context) (string, error) {
			return "poked", rpccore.PeerFrom(ctx).Notify("ping", []int{1})
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serveHeld serves c until the test ends and returns what ServePeer
// returns.
func serveHeld(t *testing.T, s *rpccore.Server, c *heldConn) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServePeer(ctx, c, rpccore.PeerConfig{}) }()
	t.Cleanup(cancel)
	return done
}

// next returns the next message c wrote.
func (c *heldConn) next(t *testing.T) written {
	t.Helper()
	select {
	case w := <-c.out:
		return w
	case <-time.After(5 * time.Second):
		t.Fatal("nothing written")
		return written{}
	}
}

func TestANotificationToAnIdlePeerIsWrittenAtOnceWhereTheConnectionCan(t *testing.T) {
	for _, tt := range []struct {
		try, notificationBy string
	}{
		{"all", "direct"}, // written by the goroutine that sent it
		{"none", "flush"}, // left held for the writer, which flushes it
	} {
		t.Run(tt.try, func(t *testing.T) {
			c := newHeldConn(tt.try)
			serveHeld(t, notifyServer(t), c)
			for i := range 3 {
				c.in <- []byte(`{"jsonrpc":"2.0","method":"poke","id":1}`)
				note, answer := c.next(t), c.next(t)
				// The first round finds the writer idle; a later one may
				// find it still running after the answer before, and queue.
				if !strings.Contains(note.msg, `"method":"ping"`) || (i == 0 && note.how != tt.notificationBy) {
					t.Fatalf("round %d: first %+v, want the notification written by %s", i, note, tt.notificationBy)
				}
				if !strings.Contains(answer.msg, `"result":"poked"`) || answer.how != "flush" {
					t.Fatalf("round %d: then %+v, want the answer, flushed by the writer", i, answer)
				}
			}
		})
	}
}

func TestAConnectionFailingAWriteThatCannotWaitEndsThePeer(t *testing.T) {
	c := newHeldConn("fail")
	done := serveHeld(t, notifyServer(t), c)
	c.in <- []byte(`{"jsonrpc":"2.0","method":"poke","id":1}`)
	select {
	case err := <-done:
		if !errors.Is(err, errTryFailed) {
			t.Fatalf("ServePeer returned %v, want the write's error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the peer went on after its connection failed")
	}
}
