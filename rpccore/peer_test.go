package rpccore_test

// peer_test.go drives ServePeer over an in-memory connection.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// pipeConn is an in-memory MessageConn; the test plays the client.
type pipeConn struct {
	in     chan []byte // client to server
	out    chan []byte // server to client
	closed chan struct{}
	once   sync.Once
	writes sync.Mutex
	flushs int

	stopRead        chan struct{} // closed by InterruptRead
	readInterrupts  atomic.Int32
	writeInterrupts atomic.Int32
	readsInServe    atomic.Int32 // reads made on ServePeer's own goroutine
}

func newPipe(outBuffer int) *pipeConn {
	return &pipeConn{in: make(chan []byte, 4096), out: make(chan []byte, outBuffer), closed: make(chan struct{}),
		stopRead: make(chan struct{})}
}

func (c *pipeConn) ReadMessage(ctx context.Context, dst []byte) ([]byte, error) {
	if calledFrom("rpccore.(*Server).ServePeer") {
		c.readsInServe.Add(1)
	}
	select {
	case m := <-c.in:
		return append(dst, m...), nil
	case <-c.closed:
		return nil, io.EOF
	case <-c.stopRead:
		return nil, errors.New("read interrupted")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// calledFrom reports whether fn (package-qualified) is on the stack.
func calledFrom(fn string) bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, "/"+fn) {
			return true
		}
		if !more {
			return false
		}
	}
}

// interruptiblePipe is a pipeConn that implements ReadInterrupter and
// WriteInterrupter.
type interruptiblePipe struct{ *pipeConn }

func (c interruptiblePipe) InterruptRead() {
	if c.readInterrupts.Add(1) == 1 {
		close(c.stopRead)
	}
}

func (c interruptiblePipe) InterruptWrite() { c.writeInterrupts.Add(1) }

func (c *pipeConn) WriteMessage(ctx context.Context, msg []byte) error {
	select {
	case c.out <- append([]byte(nil), msg...):
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *pipeConn) Flush(context.Context) error {
	c.writes.Lock()
	c.flushs++
	c.writes.Unlock()
	return nil
}

func (c *pipeConn) close() { c.once.Do(func() { close(c.closed) }) }

// send queues a message from the client.
func (c *pipeConn) send(msg string) { c.in <- []byte(msg) }

// recv waits for the next message to the client.
func (c *pipeConn) recv(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m := <-c.out:
		var v map[string]any
		if err := json.Unmarshal(m, &v); err != nil {
			t.Fatalf("server sent %q: %v", m, err)
		}
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("no message from the server")
		return nil
	}
}

// servePeer runs ServePeer on a new pipe until the test ends. The channel
// gets what ServePeer returned.
func servePeer(t *testing.T, s *rpccore.Server, cfg rpccore.PeerConfig, outBuffer int) (*pipeConn, context.CancelFunc, <-chan error) {
	t.Helper()
	return servePipe(t, s, cfg, outBuffer, false)
}

// servePipe is servePeer, on an interruptiblePipe when interruptible.
func servePipe(t *testing.T, s *rpccore.Server, cfg rpccore.PeerConfig, outBuffer int, interruptible bool) (*pipeConn, context.CancelFunc, <-chan error) {
	t.Helper()
	c := newPipe(outBuffer)
	var conn rpccore.MessageConn = c
	if interruptible {
		conn = interruptiblePipe{c}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	returned := make(chan struct{})
	go func() {
		done <- s.ServePeer(ctx, conn, cfg)
		close(returned)
	}()
	t.Cleanup(func() {
		cancel()
		c.close()
		select {
		case <-returned:
		case <-time.After(10 * time.Second):
			t.Error("ServePeer did not return")
		}
	})
	return c, cancel, done
}

func TestPeerPipelinesCalls(t *testing.T) {
	c, _, _ := servePeer(t, demoServer(t), rpccore.PeerConfig{}, 4096)
	const n = 1000
	for i := range n {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"addInt","params":[%d,1],"id":%d}`, i, i))
	}
	seen := map[int]bool{}
	for range n {
		a := c.recv(t)
		id := int(a["id"].(float64))
		if a["result"].(float64) != float64(id+1) || seen[id] {
			t.Fatalf("answer %v", a)
		}
		seen[id] = true
	}
	c.writes.Lock()
	flushes := c.flushs
	c.writes.Unlock()
	if flushes >= n {
		t.Errorf("%d flushes for %d answers: writes were not coalesced", flushes, n)
	}
}

func TestPeerKeepsServingAfterBadInput(t *testing.T) {
	c, _, _ := servePeer(t, demoServer(t), rpccore.PeerConfig{}, 16)
	c.send(`{"jsonrpc":"2.0","method":`)
	if a := c.recv(t); a["error"].(map[string]any)["code"].(float64) != -32700 {
		t.Fatalf("got %v", a)
	}
	c.send(`[]`)
	if a := c.recv(t); a["error"].(map[string]any)["code"].(float64) != -32600 {
		t.Fatalf("got %v", a)
	}
	c.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	if a := c.recv(t); a["result"].(float64) != 19 {
		t.Fatalf("got %v", a)
	}
}

func TestPeerAnswersBlockingCallsAsTheyFinish(t *testing.T) {
	s := rpccore.NewServer()
	release := make(chan struct{})
	var cancelled sync.WaitGroup
	cancelled.Add(1)
	err := s.Register("wait", rpccore.Func0(func(ctx context.Context) (string, error) {
		select {
		case <-release:
			return "released", nil
		case <-ctx.Done():
			cancelled.Done()
			return "", ctx.Err()
		}
	}).Blocking())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Register("now", rpccore.Func0(func(context.Context) (string, error) { return "now", nil })); err != nil {
		t.Fatal(err)
	}
	c, _, done := servePeer(t, s, rpccore.PeerConfig{}, 16)
	c.send(`{"jsonrpc":"2.0","method":"wait","id":1}`)
	c.send(`{"jsonrpc":"2.0","method":"now","id":2}`)
	if a := c.recv(t); a["id"].(float64) != 2 {
		t.Fatalf("the quick call waited behind the blocking one: %v", a)
	}
	close(release)
	if a := c.recv(t); a["result"] != "released" {
		t.Fatalf("got %v", a)
	}
	// A call still running when the connection goes is cancelled.
	release2 := make(chan struct{})
	defer close(release2)
	c.send(`{"jsonrpc":"2.0","method":"wait2","id":3}`)
	c.recv(t) // method not found: the pipe works
	release = make(chan struct{})
	c.send(`{"jsonrpc":"2.0","method":"wait","id":4}`)
	time.Sleep(20 * time.Millisecond)
	c.close()
	waitDone := make(chan struct{})
	go func() { cancelled.Wait(); close(waitDone) }()
	select {
	case <-waitDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the running call was not cancelled when the connection ended")
	}
	if err := <-done; !errors.Is(err, io.EOF) {
		t.Fatalf("ServePeer returned %v", err)
	}
}

// readers names the two ways ServePeer reads, for subtests.
var readers = []struct {
	name          string
	interruptible bool
}{{"reader apart", false}, {"reader on the caller's goroutine", true}}

func TestPeerReadsWhereItSays(t *testing.T) {
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			c, cancel, done := servePipe(t, demoServer(t), rpccore.PeerConfig{}, 16, r.interruptible)
			c.send(`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}`)
			if a := c.recv(t); a["result"] != 3.0 {
				t.Fatalf("answer %v", a)
			}
			cancel()
			if err := <-done; !errors.Is(err, rpccore.ErrShutdown) {
				t.Fatalf("ServePeer returned %v", err)
			}
			inServe := c.readsInServe.Load() > 0
			if inServe != r.interruptible {
				t.Fatalf("reads on ServePeer's goroutine: %v, want %v", inServe, r.interruptible)
			}
			if r.interruptible && c.readInterrupts.Load() == 0 {
				t.Fatal("the shutdown did not interrupt the blocked read")
			}
		})
	}
}

func TestPeerShutdownWritesComputedAnswers(t *testing.T) {
	s := rpccore.NewServer()
	err := s.Register("slow", rpccore.Func0(func(ctx context.Context) (string, error) {
		time.Sleep(50 * time.Millisecond)
		return "done", nil
	}).Blocking())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			c, cancel, done := servePipe(t, s, rpccore.PeerConfig{}, 16, r.interruptible)
			c.send(`{"jsonrpc":"2.0","method":"slow","id":1}`)
			time.Sleep(10 * time.Millisecond)
			cancel()
			if err := <-done; !errors.Is(err, rpccore.ErrShutdown) {
				t.Fatalf("ServePeer returned %v", err)
			}
			select {
			case m := <-c.out:
				if !strings.Contains(string(m), `"result":"done"`) {
					t.Fatalf("got %s", m)
				}
			default:
				t.Fatal("the running call's answer was not written before shutdown")
			}
		})
	}
}

func TestPeerSubscriptions(t *testing.T) {
	s := demoServer(t)
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{MaxSubscriptions: 2}, 256)
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["ticks",1],"id":1}`)
	a := c.recv(t)
	id, ok := a["result"].(string)
	if !ok || !strings.HasPrefix(id, "0x") || len(id) != 34 {
		t.Fatalf("subscribe answered %v", a)
	}
	for want := 1.0; want <= 3; want++ {
		n := c.recv(t)
		params := n["params"].(map[string]any)
		if n["method"] != "demo_subscription" || params["subscription"] != id || params["result"] != want {
			t.Fatalf("notification %v, want tick %v of %s", n, want, id)
		}
	}
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":2}`)
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":3}`)
	c.send(`{"jsonrpc":"2.0","method":"demo_unsubscribe","params":["` + id + `"],"id":4}`)
	c.send(`{"jsonrpc":"2.0","method":"demo_unsubscribe","params":["` + id + `"],"id":5}`)
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["nope"],"id":6}`)
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["ticks",0],"id":7}`)
	answers := map[float64]map[string]any{}
	for len(answers) < 6 {
		m := c.recv(t)
		if m["method"] == "demo_subscription" {
			continue // ticks still in flight
		}
		answers[m["id"].(float64)] = m
	}
	if _, ok := answers[2]["result"].(string); !ok {
		t.Fatalf("second subscription: %v", answers[2])
	}
	if e, _ := answers[3]["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "too many subscriptions") {
		t.Fatalf("third subscription past the limit of 2: %v", answers[3])
	}
	if answers[4]["result"] != true || answers[5]["result"] != false {
		t.Fatalf("unsubscribe: %v then %v", answers[4], answers[5])
	}
	for _, id := range []float64{6, 7} {
		if e, _ := answers[id]["error"].(map[string]any); e == nil || e["code"].(float64) != -32602 {
			t.Fatalf("bad subscribe %v: %v", id, answers[id])
		}
	}
}

func TestPeerBroadcast(t *testing.T) {
	s := demoServer(t)
	clients := make([]*pipeConn, 3)
	for i := range clients {
		clients[i], _, _ = servePeer(t, s, rpccore.PeerConfig{}, 64)
		clients[i].send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`)
		clients[i].recv(t)
	}
	clients[0].send(`{"jsonrpc":"2.0","method":"demo_publish","params":["chat","hi \"all\""],"id":2}`)
	for i, c := range clients {
		for {
			m := c.recv(t)
			if m["id"] != nil {
				continue // the publish answer
			}
			if got := m["params"].(map[string]any)["result"]; got != `hi "all"` {
				t.Fatalf("client %d got %v", i, m)
			}
			break
		}
	}
}

func TestSubscribeOverPlainProcess(t *testing.T) {
	got := call(demoServer(t), `{"jsonrpc":"2.0","method":"demo_subscribe","params":["ticks",10],"id":1}`)
	if !strings.Contains(got, "subscriptions need a WebSocket connection") {
		t.Fatalf("got %s", got)
	}
}

func TestPeerCallsTheClient(t *testing.T) {
	s := rpccore.NewServer()
	err := s.Register("askClient", rpccore.Func1(func(ctx context.Context, q string) (string, error) {
		p := rpccore.PeerFrom(ctx)
		if err := p.Notify("thinking", []string{q}); err != nil {
			return "", err
		}
		var answer string
		if err := p.Call(ctx, "client.answer", map[string]string{"q": q}, &answer); err != nil {
			return "", err
		}
		return "client said " + answer, nil
	}, "q").Blocking())
	if err != nil {
		t.Fatal(err)
	}
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 16)
	c.send(`{"jsonrpc":"2.0","method":"askClient","params":["why"],"id":1}`)
	if n := c.recv(t); n["method"] != "thinking" || n["id"] != nil {
		t.Fatalf("notification %v", n)
	}
	req := c.recv(t)
	if req["method"] != "client.answer" || req["params"].(map[string]any)["q"] != "why" {
		t.Fatalf("call to the client %v", req)
	}
	id, _ := json.Marshal(req["id"])
	c.send(`{"jsonrpc":"2.0","result":"because","id":` + string(id) + `}`)
	if a := c.recv(t); a["result"] != "client said because" {
		t.Fatalf("got %v", a)
	}
	// An error answer from the client reaches the method as an *Error.
	c.send(`{"jsonrpc":"2.0","method":"askClient","params":["how"],"id":2}`)
	c.recv(t)
	req = c.recv(t)
	id, _ = json.Marshal(req["id"])
	c.send(`{"jsonrpc":"2.0","error":{"code":7,"message":"no idea"},"id":` + string(id) + `}`)
	if a := c.recv(t); a["error"].(map[string]any)["code"].(float64) != 7 {
		t.Fatalf("got %v", a)
	}
}

func TestPeerSlowConsumer(t *testing.T) {
	for _, r := range readers {
		for _, policy := range []rpccore.SlowConsumerPolicy{rpccore.DropOldest, rpccore.Disconnect} {
			t.Run(fmt.Sprint(r.name, "/", policy), func(t *testing.T) {
				testSlowConsumer(t, policy, r.interruptible)
			})
		}
	}
}

func testSlowConsumer(t *testing.T, policy rpccore.SlowConsumerPolicy, interruptible bool) {
	s := demoServer(t)
	// The stuck client's writes block: its outgoing channel holds two messages.
	stuck, _, stuckDone := servePipe(t, s, rpccore.PeerConfig{SendQueue: 4, SlowConsumer: policy}, 2, interruptible)
	fast, _, _ := servePipe(t, s, rpccore.PeerConfig{SendQueue: 64, SlowConsumer: policy}, 256, interruptible)
	for _, c := range []*pipeConn{stuck, fast} {
		c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`)
		c.recv(t)
	}
	start := time.Now()
	for i := range 50 {
		if err := s.Hub().Publish("demo.chat", []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // let the fast writer drain
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("publishing took %v: the stuck client held up the publisher", d)
	}
	got := 0
	for got < 50 {
		m := fast.recv(t)
		if m["method"] == "demo_subscription" {
			got++
		}
	}
	if policy == rpccore.Disconnect {
		select {
		case err := <-stuckDone:
			if !errors.Is(err, rpccore.ErrSlowConsumer) {
				t.Fatalf("stuck peer ended with %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the stuck peer was not disconnected")
		}
		if interruptible && (stuck.readInterrupts.Load() == 0 || stuck.writeInterrupts.Load() == 0) {
			t.Fatalf("the stuck peer's read and write were not interrupted (%d, %d)",
				stuck.readInterrupts.Load(), stuck.writeInterrupts.Load())
		}
	}
}

// countingEvents counts what an rpccore.PeerObserver hears of peers.
type countingEvents struct {
	mu                        sync.Mutex
	in, out, subs, peak, drop int
}

func (e *countingEvents) ObserveCall(string, int, time.Duration) {}
func (e *countingEvents) MessagesIn(n int)                       { e.mu.Lock(); e.in += n; e.mu.Unlock() }
func (e *countingEvents) MessagesOut(n int)                      { e.mu.Lock(); e.out += n; e.mu.Unlock() }
func (e *countingEvents) SubscriptionsChanged(d int) {
	e.mu.Lock()
	e.subs += d
	e.peak = max(e.peak, e.subs)
	e.mu.Unlock()
}
func (e *countingEvents) NotificationsDropped(n int) { e.mu.Lock(); e.drop += n; e.mu.Unlock() }

func TestPeerEvents(t *testing.T) {
	events := &countingEvents{}
	c, cancel, done := servePeer(t, demoServer(t, rpccore.WithObserver(events)), rpccore.PeerConfig{}, 64)
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`)
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":2}`)
	c.send(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":3}`)
	for range 3 {
		c.recv(t)
	}
	cancel()
	<-done
	events.mu.Lock()
	defer events.mu.Unlock()
	if events.in != 3 || events.out != 3 || events.peak != 2 || events.subs != 0 || events.drop != 0 {
		t.Fatalf("events: in %d out %d subs %d peak %d dropped %d", events.in, events.out, events.subs, events.peak, events.drop)
	}
}

func TestSendJSONWaitWaitsForRoomAndEndsWithTheSubscription(t *testing.T) {
	s := rpccore.NewServer()
	const count = 300
	ended := make(chan error, 1)
	err := s.RegisterSubscription("w", "count", rpccore.Proc0(func(ctx context.Context) error {
		sub := rpccore.SubscriptionFrom(ctx)
		go func() {
			// The first sends come before the client has the id: they are
			// held, then wait for it.
			for n := 1; ; n++ {
				if n > count {
					n = count + 1 // values past count are never read
				}
				if err := sub.SendJSONWait([]byte(fmt.Sprint(n))); err != nil {
					ended <- err
					return
				}
			}
		}()
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []rpccore.SlowConsumerPolicy{rpccore.DropOldest, rpccore.Disconnect} {
		// A queue of 2 and an outgoing channel of 1: the writer blocks until
		// the client reads.
		c, cancel, _ := servePeer(t, s, rpccore.PeerConfig{SendQueue: 2, SlowConsumer: policy}, 1)
		c.send(`{"jsonrpc":"2.0","method":"w_subscribe","params":["count"],"id":1}`)
		if m := c.recv(t); m["result"] == nil {
			t.Fatalf("subscribe: %v", m)
		}
		for n := 1; n <= count; n++ {
			m := c.recv(t)
			params, _ := m["params"].(map[string]any)
			if params["result"] != float64(n) {
				t.Fatalf("policy %d: notification %d is %v", policy, n, m)
			}
			if n%100 == 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
		cancel()
		select {
		case err := <-ended:
			if !errors.Is(err, rpccore.ErrPeerClosed) {
				t.Fatalf("the waiting sender ended with %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the waiting sender did not end with the connection")
		}
	}
}

// peerValueKey is the key of a value the context of ServePeer carries.
type peerValueKey struct{}

func TestPeerCallsCarryTheValuesOfItsContext(t *testing.T) {
	s := rpccore.NewServer()
	if err := s.Register("value", rpccore.Func0(func(ctx context.Context) (string, error) {
		v, _ := ctx.Value(peerValueKey{}).(string)
		return v, nil
	})); err != nil {
		t.Fatal(err)
	}
	c := newPipe(16)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), peerValueKey{}, "from the transport"))
	done := make(chan error, 1)
	go func() { done <- s.ServePeer(ctx, c, rpccore.PeerConfig{}) }()
	c.send(`{"jsonrpc":"2.0","method":"value","id":1}`)
	if a := c.recv(t); a["result"] != "from the transport" {
		t.Errorf("answer %v", a)
	}
	cancel()
	c.close()
	<-done
}

func TestPeerCallsFailWithErrPeerClosedOnceTheConnectionEnds(t *testing.T) {
	s := rpccore.NewServer()
	peers := make(chan *rpccore.Peer, 1)
	waiting := make(chan error, 1)
	err := s.Register("keep", rpccore.Proc0(func(ctx context.Context) error {
		p := rpccore.PeerFrom(ctx)
		peers <- p
		go func() { waiting <- p.Call(context.Background(), "client.never", nil, nil) }()
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	c, cancel, done := servePeer(t, s, rpccore.PeerConfig{CallTimeout: time.Minute}, 16)
	// An answer to a call the server never made is ignored, before and
	// after the server's first call.
	c.send(`{"jsonrpc":"2.0","result":1,"id":"s1"}`)
	c.send(`{"jsonrpc":"2.0","method":"keep","id":1}`)
	p := <-peers
	for range 2 {
		if m := c.recv(t); m["method"] == "client.never" {
			c.send(`{"jsonrpc":"2.0","result":1,"id":"s999"}`)
		} else if m["id"] != float64(1) {
			t.Fatalf("got %v", m)
		}
	}
	cancel()
	<-done
	select {
	case err := <-waiting:
		if !errors.Is(err, rpccore.ErrPeerClosed) {
			t.Fatalf("the call waiting when the connection ended: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call waiting when the connection ended still waits")
	}
	start := time.Now()
	if err := p.Call(context.Background(), "client.late", nil, nil); !errors.Is(err, rpccore.ErrPeerClosed) ||
		time.Since(start) > time.Second {
		t.Fatalf("a call after the end: %v after %v", err, time.Since(start))
	}
}
