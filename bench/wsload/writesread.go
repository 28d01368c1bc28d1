package wsload

// writesread.go times the least a delivery to many subscribers can cost
// here when the subscribers read: one write system call per connection
// from the server's side, spread over the processors, and one read on the
// other end, on the same cores, with no WebSocket and no JSON-RPC.

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// WritesRead opens n loopback TCP connections with a goroutine reading
// each, and returns, for each of runs rounds, the time from the first
// write of a message of size bytes until the last reader has it. The
// writes are shared between one goroutine per processor, each writing to
// its connections in turn.
func WritesRead(n, size, runs int) ([]time.Duration, error) {
	clients, servers, closeAll, err := loopbackPairs(n)
	if err != nil {
		return nil, fmt.Errorf("wsload: writes read: %w", err)
	}
	var readers sync.WaitGroup
	defer func() {
		closeAll()
		readers.Wait()
	}()
	var waiting atomic.Int64
	round := make(chan struct{}, 1)
	var last atomic.Int64 // Unix ns of the latest arrival in the round
	for _, c := range clients {
		readers.Go(func() {
			buf := make([]byte, size)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				keepLatest(&last, time.Now().UnixNano())
				if waiting.Add(-1) == 0 {
					round <- struct{}{}
				}
			}
		})
	}
	msg := make([]byte, size)
	shares := max(1, min(runtime.GOMAXPROCS(0), n))
	times := make([]time.Duration, 0, runs)
	for range runs {
		waiting.Store(int64(n))
		start := time.Now()
		var writers sync.WaitGroup
		failed := make(chan error, shares)
		for i := range shares {
			share := servers[i*n/shares : (i+1)*n/shares]
			writers.Go(func() {
				for _, s := range share {
					if _, err := s.Write(msg); err != nil {
						failed <- err
						return
					}
				}
			})
		}
		writers.Wait()
		select {
		case err := <-failed:
			return nil, fmt.Errorf("wsload: writes read: %w", err)
		default:
		}
		select {
		case <-round:
		case <-time.After(30 * time.Second):
			return nil, fmt.Errorf("wsload: writes read: %d readers still wait", waiting.Load())
		}
		times = append(times, time.Duration(last.Load()-start.UnixNano()))
	}
	return times, nil
}
