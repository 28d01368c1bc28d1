package wsload

// writesread.go times the least a delivery to many subscribers can cost
// here when the subscribers read: one write system call per connection
// from the server's side, spread over the processors, and one read on the
// other end, on the same cores, with no WebSocket and no JSON-RPC.

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// WritesReadSession is n loopback TCP connections with a goroutine of
// the harness reading each: a Broadcaster that times a message of size
// bytes from its first write until the last reader has it, the writes
// shared between one goroutine per processor, each writing to its
// connections in turn.
type WritesReadSession struct {
	servers  []net.Conn
	msg      []byte
	waiting  atomic.Int64
	last     atomic.Int64  // Unix ns of the latest arrival of the message
	round    chan struct{} // the last reader has the message
	closeAll func()
	readers  sync.WaitGroup
}

// OpenWritesRead opens the n connections of a WritesReadSession and
// starts their readers.
func OpenWritesRead(n, size int) (*WritesReadSession, error) {
	clients, servers, closeAll, err := loopbackPairs(n)
	if err != nil {
		return nil, fmt.Errorf("wsload: writes read: %w", err)
	}
	w := &WritesReadSession{servers: servers, msg: make([]byte, size), round: make(chan struct{}, 1), closeAll: closeAll}
	for _, c := range clients {
		w.readers.Go(func() {
			buf := make([]byte, size)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				keepLatest(&w.last, time.Now().UnixNano())
				if w.waiting.Add(-1) == 0 {
					w.round <- struct{}{}
				}
			}
		})
	}
	return w, nil
}

// Publish writes the message to every connection and waits until every
// reader has it; i is not used.
func (w *WritesReadSession) Publish(ctx context.Context, _ int) (time.Duration, error) {
	n := len(w.servers)
	shares := max(1, min(runtime.GOMAXPROCS(0), n))
	w.waiting.Store(int64(n))
	start := time.Now()
	var writers sync.WaitGroup
	failed := make(chan error, shares)
	for i := range shares {
		share := w.servers[i*n/shares : (i+1)*n/shares]
		writers.Go(func() {
			for _, s := range share {
				if _, err := s.Write(w.msg); err != nil {
					failed <- err
					return
				}
			}
		})
	}
	writers.Wait()
	select {
	case err := <-failed:
		return 0, fmt.Errorf("wsload: writes read: %w", err)
	default:
	}
	select {
	case <-w.round:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(30 * time.Second):
		return 0, fmt.Errorf("wsload: writes read: %d readers still wait", w.waiting.Load())
	}
	return time.Duration(w.last.Load() - start.UnixNano()), nil
}

// Close closes the connections and waits for the readers.
func (w *WritesReadSession) Close() {
	w.closeAll()
	w.readers.Wait()
}
