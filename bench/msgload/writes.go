package msgload

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// WritesSession is n loopback TCP connections: a Broadcaster that times
// writing a message of size bytes to every one of them. Without read,
// nobody reads: one goroutine writes to every connection in turn, the bytes
// waiting in the socket buffers, and the time runs until the last write
// returns. With read, a goroutine of the harness reads each connection,
// the writes are shared between one goroutine per processor, each writing
// to its connections in turn, and the time runs until the last reader has
// the message.
type WritesSession struct {
	servers []net.Conn // the ends written to
	all     []net.Conn // both ends of every connection
	msg     []byte
	read    bool
	round   atomic.Pointer[round] // the message being read
	readers sync.WaitGroup
}

// OpenWrites opens the n loopback TCP connections of a WritesSession,
// with a reader on the client end of each when read is set.
func OpenWrites(n, size int, read bool) (*WritesSession, error) {
	w := &WritesSession{msg: make([]byte, size), read: read}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("msgload: writes: %w", err)
	}
	defer l.Close()
	for range n {
		c, err := net.Dial("tcp", l.Addr().String())
		var s net.Conn
		if err == nil {
			w.all = append(w.all, c)
			s, err = l.Accept()
		}
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("msgload: writes: %w", err)
		}
		w.all, w.servers = append(w.all, s), append(w.servers, s)
		if read {
			w.readers.Go(func() { // until c is closed
				buf := make([]byte, size)
				for _, err := io.ReadFull(c, buf); err == nil; _, err = io.ReadFull(c, buf) {
					w.round.Load().arrived(buf, time.Now().UnixNano())
				}
			})
		}
	}
	return w, nil
}

// Publish writes the message to every connection and, when they are read,
// waits until every reader has it; i is not used.
func (w *WritesSession) Publish(ctx context.Context, _ int) (time.Duration, error) {
	n := len(w.servers)
	r := newRound(n, nil)
	w.round.Store(r)
	start := time.Now()
	if !w.read {
		err := w.write(w.servers)
		return time.Since(start), err
	}
	shares := max(1, min(runtime.GOMAXPROCS(0), n))
	var writers errgroup.Group
	for i := range shares {
		writers.Go(func() error { return w.write(w.servers[i*n/shares : (i+1)*n/shares]) })
	}
	if err := writers.Wait(); err != nil {
		return 0, err
	}
	return r.wait(ctx, ctx, start, 30*time.Second)
}

// write writes the message to each of conns in turn.
func (w *WritesSession) write(conns []net.Conn) error {
	for _, s := range conns {
		if _, err := s.Write(w.msg); err != nil {
			return fmt.Errorf("msgload: writes: %w", err)
		}
	}
	return nil
}

// Close closes the connections and waits for the readers.
func (w *WritesSession) Close() {
	for _, c := range w.all {
		c.Close()
	}
	w.readers.Wait()
}
