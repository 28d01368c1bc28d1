package rpccore_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// goroutineID reads the calling goroutine's number from its stack header.
func goroutineID() string {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	return string(b[:bytes.IndexByte(b, ' ')])
}

func TestPeerRunsBlockingCallsOnWorkersThatStay(t *testing.T) {
	s := rpccore.NewServer()
	var mu sync.Mutex
	ran := map[string]int{}
	err := s.Register("where", rpccore.Func0(func(context.Context) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		ran[goroutineID()]++
		return 1, nil
	}).Blocking())
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	c, cancel, done := servePeer(t, s, rpccore.PeerConfig{MaxInFlight: 4}, 16)
	const calls = 50
	for i := range calls { // one at a time: each call finds the last one's worker idle
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"where","id":%d}`, i))
		if a := c.recv(t); a["result"] != 1.0 {
			t.Fatalf("answer %v", a)
		}
	}
	mu.Lock()
	workers := len(ran)
	mu.Unlock()
	// A worker that has written its answer may not be waiting yet when the
	// next document comes: then a second one starts. Never one per call.
	if workers > 4 {
		t.Errorf("%d calls ran on %d goroutines", calls, workers)
	}

	// Many at once, then the peer ends: no worker is left.
	for i := range calls {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"where","id":%d}`, i))
	}
	for range calls {
		c.recv(t)
	}
	cancel()
	c.close()
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the peer ended, %d before it", n, before)
	}
}

// holdServer returns a server whose Blocking method "hold" records the
// order its calls start in, then waits until release is closed and
// answers its param.
func holdServer(t *testing.T, release <-chan struct{}) (*rpccore.Server, func() []int) {
	t.Helper()
	s := rpccore.NewServer()
	var mu sync.Mutex
	var started []int
	err := s.Register("hold", rpccore.Func1(func(_ context.Context, n int) (int, error) {
		mu.Lock()
		started = append(started, n)
		mu.Unlock()
		<-release
		return n, nil
	}, "n").Blocking())
	if err != nil {
		t.Fatal(err)
	}
	return s, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), started...)
	}
}

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("never: " + what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPeerQueuesBlockingDocumentsPastMaxInFlightThenStopsReading(t *testing.T) {
	release := make(chan struct{})
	s, started := holdServer(t, release)
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{MaxInFlight: 1}, 64)
	const n = 10
	for i := range n {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","params":[%d],"id":%d}`, i, i))
	}
	// One runs, one waits for the worker, and the reader holds the third,
	// waiting for room: the other seven stay unread.
	eventually(t, "one call running and seven documents unread", func() bool {
		return len(started()) == 1 && len(c.in) == n-3
	})
	time.Sleep(50 * time.Millisecond)
	if got, unread := started(), len(c.in); len(got) != 1 || unread != n-3 {
		t.Fatalf("%d calls started and %d documents unread, want 1 and %d", len(got), unread, n-3)
	}
	close(release)
	for range n {
		if a := c.recv(t); a["result"] != a["id"] {
			t.Fatalf("answer %v", a)
		}
	}
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if got := started(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("calls started in the order %v, want the order read %v", got, want)
	}
}

// TestPeerRunsAsManyWaitingCallsAsMaxInFlight: calls that wait each get
// a worker of their own, up to MaxInFlight, though the reader wakes one
// worker at a time and each woken worker wakes the next.
func TestPeerRunsAsManyWaitingCallsAsMaxInFlight(t *testing.T) {
	release := make(chan struct{})
	s, started := holdServer(t, release)
	const limit, n = 8, 20
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{MaxInFlight: limit}, 64)
	for i := range n {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","params":[%d],"id":%d}`, i, i))
	}
	// Eight run at once, eight wait, the reader holds the seventeenth:
	// three stay unread.
	eventually(t, "eight calls running at once", func() bool {
		return len(started()) == limit && len(c.in) == n-2*limit-1
	})
	time.Sleep(50 * time.Millisecond)
	if got, unread := started(), len(c.in); len(got) != limit || unread != n-2*limit-1 {
		t.Fatalf("%d calls started and %d documents unread, want %d and %d", len(got), unread, limit, n-2*limit-1)
	}
	close(release)
	for range n {
		if a := c.recv(t); a["result"] != a["id"] {
			t.Fatalf("answer %v", a)
		}
	}
}

func TestPeerShutdownAnswersTheDocumentsWaitingForAWorker(t *testing.T) {
	release := make(chan struct{})
	s, started := holdServer(t, release)
	c, cancel, done := servePeer(t, s, rpccore.PeerConfig{MaxInFlight: 1}, 64)
	for i := range 2 {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","params":[%d],"id":%d}`, i, i))
	}
	// The reader answers this one itself, after it has queued the second
	// hold: the shutdown cannot come between reading that and queueing it.
	c.send(`{"jsonrpc":"2.0","method":"unknown","id":"read"}`)
	if a := c.recv(t); a["id"] != "read" {
		t.Fatalf("answer %v, want the reader's answer to the unknown method", a)
	}
	eventually(t, "one call running and one waiting", func() bool {
		return len(started()) == 1 && len(c.in) == 0
	})
	cancel()
	time.Sleep(20 * time.Millisecond)
	close(release)
	for i := range 2 {
		if a := c.recv(t); a["result"] != float64(i) {
			t.Fatalf("answer %v, want the result of call %d", a, i)
		}
	}
	if err := <-done; err != rpccore.ErrShutdown {
		t.Errorf("ServePeer returned %v, want ErrShutdown", err)
	}
}
