package rpcclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// stateLog records the states a client reports.
type stateLog struct {
	mu     sync.Mutex
	states []State
	seen   chan State
}

func newStateLog() *stateLog { return &stateLog{seen: make(chan State, 64)} }

func (l *stateLog) record(s State, _ error) {
	l.mu.Lock()
	l.states = append(l.states, s)
	l.mu.Unlock()
	select {
	case l.seen <- s:
	default:
	}
}

// await waits until the client reports s.
func (l *stateLog) await(t *testing.T, s State) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case got := <-l.seen:
			if got == s {
				return
			}
		case <-timeout:
			t.Fatalf("state %v never came", s)
		}
	}
}

func TestCallWaitsForTheNextConnection(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	log := newStateLog()
	c := dialTest(t, srv.url(), WithStateFunc(log.record))
	srv.stop()
	log.await(t, Reconnecting)
	done := make(chan error, 1)
	go func() {
		var r float64
		err := c.Call(testContext(t), &r, "add", 1, 2)
		if err == nil && r != 3 {
			err = errors.New("wrong sum")
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the call ended while the server was down: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	srv.restart()
	log.await(t, Connected)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestFailFast(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	log := newStateLog()
	c := dialTest(t, srv.url(), WithFailFast(), WithStateFunc(log.record))
	srv.stop()
	log.await(t, Reconnecting)
	if err := c.Call(testContext(t), nil, "add", 1, 2); !errors.Is(err, ErrDisconnected) {
		t.Fatalf("call while down: %v", err)
	}
}

func TestFailFastRightAfterDial(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	for range 50 {
		c := dialTest(t, srv.url(), WithFailFast())
		if err := c.Call(testContext(t), nil, "add", 1, 2); err != nil {
			t.Fatalf("the first call after Dial: %v", err)
		}
		c.Close()
	}
}

func TestCallGivesUpWithItsContext(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	log := newStateLog()
	c := dialTest(t, srv.url(), WithStateFunc(log.record))
	srv.stop()
	log.await(t, Reconnecting)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, nil, "add", 1, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call while down: %v", err)
	}
}

func TestSentCallsAfterALostConnection(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	log := newStateLog()
	c := dialTest(t, srv.url(), WithStateFunc(log.record), WithIdempotentMethods("Test2"))
	ctx := testContext(t)
	plain := make(chan error, 1)
	marked := make(chan error, 1)
	byOption := make(chan error, 1)
	go func() { plain <- c.Call(ctx, nil, "delay", 300) }()
	go func() { marked <- c.Call(Idempotent(ctx), nil, "delay", 300) }()
	go func() {
		// Test2 is idempotent by option; it is answered at once, so it
		// is sent and answered before the drop or resent after it.
		var v float64
		err := c.Call(ctx, &v, "Test2", 2.5)
		if err == nil && v != 2.5 {
			err = errors.New("wrong Test2")
		}
		byOption <- err
	}()
	time.Sleep(100 * time.Millisecond) // the delays are running on the server
	srv.dropConnections()
	err := <-plain
	var unknown *OutcomeUnknownError
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.As(err, &unknown) || unknown.Method != "delay" {
		t.Fatalf("non-idempotent call: %v", err)
	}
	if err := <-marked; err != nil {
		t.Fatalf("idempotent call: %v", err)
	}
	if err := <-byOption; err != nil {
		t.Fatalf("idempotent method: %v", err)
	}
}

func TestSubscriptionComesBack(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	log := newStateLog()
	c := dialTest(t, srv.url(), WithStateFunc(log.record))
	ticks := make(chan int, 64)
	sub, err := c.Subscribe(testContext(t), "demo", ticks, "ticks", 2)
	if err != nil {
		t.Fatal(err)
	}
	receive(t, ticks, 2)
	srv.stop()
	log.await(t, Reconnecting)
	srv.restart()
	select {
	case <-sub.Gap():
	case <-time.After(5 * time.Second):
		t.Fatal("no gap after the reconnect")
	}
	for len(ticks) > 0 {
		<-ticks
	}
	// The counter starts again at 1 on the new connection.
	got := receive(t, ticks, 2)
	if got[0] != 1 {
		t.Fatalf("after the reconnect: %v", got)
	}
	select {
	case err := <-sub.Err():
		t.Fatalf("subscription ended: %v", err)
	default:
	}
}

func TestResubscribeChoosesTheParams(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	var lastSeen atomic.Value
	c := dialTest(t, srv.url(), WithResubscribe(func(ns string, params, last rpccore.RawJSON) rpccore.RawJSON {
		lastSeen.Store(string(last))
		return rpccore.RawJSON(`["ticks",3]`)
	}))
	ticks := make(chan int, 64)
	sub, err := c.Subscribe(testContext(t), "demo", ticks, "ticks", 2)
	if err != nil {
		t.Fatal(err)
	}
	receive(t, ticks, 1)
	srv.dropConnections()
	<-sub.Gap()
	if l, _ := lastSeen.Load().(string); l == "" {
		t.Fatal("the hook did not see the last notification")
	}
}

// TestFaultWithManyCallsInFlight loses the connection, then the whole
// server, while 1,000 calls are in flight and a subscription is live.
func TestFaultWithManyCallsInFlight(t *testing.T) {
	for _, fault := range []string{"connection", "server"} {
		t.Run(fault, func(t *testing.T) {
			before := runtime.NumGoroutine()
			srv := startStreamServer(t, newTestRPCServer(t))
			log := newStateLog()
			c := dialTest(t, srv.url(), WithStateFunc(log.record))
			ctx := testContext(t)
			ticks := make(chan int, 1024)
			sub, err := c.Subscribe(ctx, "demo", ticks, "ticks", 5)
			if err != nil {
				t.Fatal(err)
			}
			const calls = 1000
			var answered, unknown, idempotentOK, unsent atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, 2*calls)
			for i := range calls {
				wg.Go(func() {
					ctx := ctx
					idem := i%2 == 0
					if idem {
						ctx = Idempotent(ctx)
					}
					var r int
					err := c.Call(ctx, &r, "delay", 50)
					switch {
					case err == nil && r == 50:
						answered.Add(1)
						if idem {
							idempotentOK.Add(1)
						}
					case errors.Is(err, ErrOutcomeUnknown) && !idem:
						unknown.Add(1)
					default:
						errs <- err
					}
				})
			}
			time.Sleep(20 * time.Millisecond)
			if fault == "connection" {
				srv.dropConnections()
			} else {
				srv.stop()
				log.await(t, Reconnecting)
				// Calls made while the server is down have not left:
				// every one completes once it is back.
				for i := range calls / 2 {
					wg.Go(func() {
						var r int
						if err := c.Call(ctx, &r, "addInt", i, 1); err != nil || r != i+1 {
							errs <- fmt.Errorf("a call made while down: %d, %v", r, err)
							return
						}
						answered.Add(1)
						unsent.Add(1)
					})
				}
				time.Sleep(50 * time.Millisecond)
				srv.restart()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatalf("a call failed otherwise: %v", err)
			}
			if idempotentOK.Load() != calls/2 || answered.Load()+unknown.Load() != calls+unsent.Load() {
				t.Fatalf("answered %d (idempotent %d, unsent %d), unknown %d", answered.Load(), idempotentOK.Load(), unsent.Load(), unknown.Load())
			}
			t.Logf("answered %d (made while down %d), outcome unknown %d", answered.Load(), unsent.Load(), unknown.Load())
			select {
			case <-sub.Gap():
			case <-time.After(5 * time.Second):
				t.Fatal("the subscription was not made again")
			}
			for len(ticks) > 0 {
				<-ticks
			}
			receive(t, ticks, 1)
			c.Close()
			srv.stop()
			waitGoroutines(t, before)
		})
	}
}

// waitGoroutines waits until no more goroutines run than before.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSubscriptionSurvivesLossesInARow(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	ticks := make(chan int, 1024)
	sub, err := c.Subscribe(testContext(t), "demo", ticks, "ticks", 2)
	if err != nil {
		t.Fatal(err)
	}
	receive(t, ticks, 1)
	for range 5 {
		srv.dropConnections()
		time.Sleep(3 * time.Millisecond) // often while it is being made again
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case <-sub.Gap():
		case <-deadline:
			t.Fatal("no gap")
		}
		// One subscription on the server: the counter goes 1, 2, 3, ...
		// with no value twice.
		for len(ticks) > 0 {
			<-ticks
		}
		got := receive(t, ticks, 3)
		if got[1] == got[0]+1 && got[2] == got[1]+1 {
			return
		}
		t.Logf("ticks %v while settling", got)
	}
}

// silentWebSocket accepts WebSocket connections and then neither reads
// nor answers anything: a server that hangs.
func silentWebSocket(t *testing.T) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := wsconn.Accept(w, r, wsconn.Options{})
		if err != nil {
			return
		}
		<-r.Context().Done()
		_ = conn.CloseNow()
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return "ws" + strings.TrimPrefix(ts.URL, "http")
}

func TestPingsDropAServerThatHangs(t *testing.T) {
	log := newStateLog()
	dialTest(t, silentWebSocket(t), WithPingInterval(20*time.Millisecond), WithStateFunc(log.record))
	log.await(t, Reconnecting)
}
