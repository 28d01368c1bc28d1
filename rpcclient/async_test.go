package rpcclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestGoKeepsManyCallsInFlight(t *testing.T) {
	for name, url := range transports(t, newTestRPCServer(t)) {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, url)
			ctx := testContext(t)
			const n = 1000
			done := make(chan *AsyncCall, n)
			results := make([]int, n)
			for i := range n {
				c.Go(ctx, done, &results[i], "addInt", i, 1)
			}
			for range n {
				a := <-done
				if a.Error != nil {
					t.Fatal(a.Error)
				}
			}
			for i, r := range results {
				if r != i+1 {
					t.Fatalf("call %d: %d", i, r)
				}
			}
			var rpcErr *rpccore.Error
			if a := <-c.Go(ctx, nil, nil, "fail").Done; !errors.As(a.Error, &rpcErr) || rpcErr.Code != 4711 {
				t.Fatalf("fail: %v", a.Error)
			}
			if a := <-c.Go(ctx, nil, nil, "add", func() {}).Done; a.Error == nil {
				t.Fatal("a func argument was sent")
			}
		})
	}
}

func TestGoEndsWithItsContext(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	a := <-c.Go(ctx, nil, nil, "delay", 2000).Done
	if !errors.Is(a.Error, context.DeadlineExceeded) {
		t.Fatalf("delay: %v", a.Error)
	}
	// The client goes on working; the late answer is dropped.
	if v, err := CallT[int](testContext(t), c, "addInt", 1, 1); err != nil || v != 2 {
		t.Fatalf("after: %v, %v", v, err)
	}
}

func TestGoAcrossALostConnection(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	ctx := testContext(t)
	plain := c.Go(ctx, nil, nil, "delay", 300)
	marked := c.Go(Idempotent(ctx), nil, nil, "delay", 300)
	time.Sleep(100 * time.Millisecond)
	srv.dropConnections()
	if a := <-plain.Done; !errors.Is(a.Error, ErrOutcomeUnknown) {
		t.Fatalf("non-idempotent: %v", a.Error)
	}
	if a := <-marked.Done; a.Error != nil {
		t.Fatalf("idempotent: %v", a.Error)
	}
	pendingCall := c.Go(ctx, nil, nil, "delay", 5000)
	time.Sleep(20 * time.Millisecond)
	c.Close()
	if a := <-pendingCall.Done; !errors.Is(a.Error, ErrClientClosed) {
		t.Fatalf("after Close: %v", a.Error)
	}
}

func TestGoCallReusesItsCalls(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	ctx := testContext(t)
	const inFlight, total = 32, 2000
	done := make(chan *AsyncCall, inFlight)
	results := make([]int, inFlight)
	for i := range inFlight {
		c.GoCall(ctx, &AsyncCall{Method: "addInt", Result: &results[i], Done: done}, i, 0)
	}
	started, finished := inFlight, 0
	for finished < total {
		a := <-done
		if a.Error != nil {
			t.Fatal(a.Error)
		}
		finished++
		if started < total {
			*a.Result.(*int) = -1
			c.GoCall(ctx, a, started, 0) // the same call, again
			started++
		}
	}
	for i, r := range results {
		if r < 0 {
			t.Fatalf("call %d left no result", i)
		}
	}
}

func TestGoCallStartedAgainKeepsItsRequest(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	ctx := testContext(t)
	var sum int
	a := &AsyncCall{Method: "addInt", Result: &sum, Done: make(chan *AsyncCall, 1)}
	c.GoCall(ctx, a, 1, 2)
	if <-a.Done; a.Error != nil || sum != 3 {
		t.Fatalf("first: %d, %v", sum, a.Error)
	}
	kept := a.kept
	if kept == nil || kept.call == nil {
		t.Fatal("a finished call kept no request for its next run")
	}
	firstID := string(kept.call.ID())
	c.GoCall(ctx, a, 2, 5)
	if <-a.Done; a.Error != nil || sum != 7 {
		t.Fatalf("again: %d, %v", sum, a.Error)
	}
	if a.kept != kept {
		t.Fatal("the call started again took another request")
	}
	if id := string(a.kept.call.ID()); id == firstID {
		t.Fatalf("the call started again reused the id %s", id)
	}
	// A call that fails (its context ended) is started again as well.
	ended, cancel := context.WithCancel(ctx)
	cancel()
	c.GoCall(ended, a, 1, 1)
	if <-a.Done; a.Error == nil {
		t.Fatal("a call with an ended context did not fail")
	}
	c.GoCall(ctx, a, 4, 4)
	if <-a.Done; a.Error != nil || sum != 8 {
		t.Fatalf("after a failure: %d, %v", sum, a.Error)
	}
}

func TestGoCallStartedAgainOnAClientThatRefusesFails(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url(), WithFailFast())
	ctx := testContext(t)
	var sum int
	a := &AsyncCall{Method: "addInt", Result: &sum, Done: make(chan *AsyncCall, 1)}
	c.GoCall(ctx, a, 1, 2)
	if <-a.Done; a.Error != nil || a.kept == nil {
		t.Fatalf("first: %v (kept %v)", a.Error, a.kept != nil)
	}
	c.Close()
	c.GoCall(ctx, a, 1, 2) // refused: the request kept goes back
	if <-a.Done; !errors.Is(a.Error, ErrClientClosed) {
		t.Fatalf("on a closed client: %v", a.Error)
	}
	if a.kept != nil {
		t.Fatal("a refused call kept a request")
	}
}
