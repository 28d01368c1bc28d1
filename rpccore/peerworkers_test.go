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
