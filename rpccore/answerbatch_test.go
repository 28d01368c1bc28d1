package rpccore_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// waitingPipe is a pipeConn that tells, as a stream does, before a read
// may wait: when no message is queued.
type waitingPipe struct {
	*pipeConn
	beforeWait func()
	waits      int
}

func (c *waitingPipe) BeforeReadWait(f func()) { c.beforeWait = f }

func (c *waitingPipe) ReadMessage(ctx context.Context, dst []byte) ([]byte, error) {
	if len(c.in) == 0 && c.beforeWait != nil {
		c.waits++
		c.beforeWait()
	}
	return c.pipeConn.ReadMessage(ctx, dst)
}

// TestPeerQueuesTheAnswersOfOneReadTogether sends a burst of calls that
// the peer reads without waiting: their answers reach the writer together,
// in order, and leave in one flush; a subscription opened in the burst
// starts only after its answer.
func TestPeerQueuesTheAnswersOfOneReadTogether(t *testing.T) {
	c := &waitingPipe{pipeConn: newPipe(4096)}
	s := demoServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	const n = 40
	for i := range n {
		c.send(`{"jsonrpc":"2.0","method":"addInt","params":[` + strconv.Itoa(i) + `,1],"id":` + strconv.Itoa(i) + `}`)
	}
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["ticks",200],"id":"sub"}`)
	go func() { done <- s.ServePeer(ctx, c, rpccore.PeerConfig{}) }()
	defer func() {
		cancel()
		c.close()
		<-done
	}()
	for i := range n {
		a := c.recv(t)
		if a["id"] != float64(i) || a["result"] != float64(i+1) {
			t.Fatalf("answer %d: %v", i, a)
		}
	}
	if a := c.recv(t); a["id"] != "sub" {
		t.Fatalf("the subscription's answer came after %v", a)
	}
	c.writes.Lock()
	flushes := c.flushs
	c.writes.Unlock()
	// The 41 answers are queued together; the writer may take them in one
	// or two goes (it may wake for the first before the rest are queued
	// when the pipe's reads race it), not one by one.
	if flushes > 2 {
		t.Errorf("%d flushes for one burst of %d answers", flushes, n+1)
	}
	if a := c.recv(t); a["method"] != "demo_subscription" {
		t.Fatalf("after the subscription's answer: %v", a)
	}
}
