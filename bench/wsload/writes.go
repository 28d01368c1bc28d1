package wsload

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

// WritesSession is n loopback TCP connections: a Broadcaster that times
// writing a message of size bytes to every one of them. Without read,
// nobody reads: one goroutine writes to every connection in turn, the bytes
// waiting in the socket buffers, and the time runs until the last write
// returns. With read, a goroutine of the harness reads each connection,
// the writes are shared between one goroutine per processor, each writing
// to its connections in turn, and the time runs until the last reader has
// the message.
type WritesSession struct {
	servers  []net.Conn
	msg      []byte
	read     bool
	round    atomic.Pointer[round] // the message being read
	closeAll func()
	readers  sync.WaitGroup
}

// OpenWrites opens the n loopback TCP connections of a WritesSession,
// with a reader on the client end of each when read is set.
func OpenWrites(n, size int, read bool) (*WritesSession, error) {
	w := &WritesSession{msg: make([]byte, size), read: read}
	var clients []net.Conn
	w.closeAll = func() {
		for i := range clients {
			clients[i].Close()
			w.servers[i].Close()
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("wsload: writes: %w", err)
	}
	defer l.Close()
	for range n {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			w.closeAll()
			return nil, fmt.Errorf("wsload: writes: %w", err)
		}
		s, err := l.Accept()
		if err != nil {
			c.Close()
			w.closeAll()
			return nil, fmt.Errorf("wsload: writes: %w", err)
		}
		clients, w.servers = append(clients, c), append(w.servers, s)
	}
	if read {
		for _, c := range clients {
			w.readers.Go(func() { w.readLoop(c, size) })
		}
	}
	return w, nil
}

// readLoop reads messages of size bytes from c until it is closed.
func (w *WritesSession) readLoop(c net.Conn, size int) {
	buf := make([]byte, size)
	for {
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		w.round.Load().arrived(buf, time.Now().UnixNano())
	}
}

// Publish writes the message to every connection and, when they are read,
// waits until every reader has it; i is not used.
func (w *WritesSession) Publish(ctx context.Context, _ int) (time.Duration, error) {
	n := len(w.servers)
	r := newRound(n, nil)
	w.round.Store(r)
	start := time.Now()
	if !w.read {
		if err := w.write(w.servers); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
	shares := max(1, min(runtime.GOMAXPROCS(0), n))
	var writers sync.WaitGroup
	failed := make(chan error, shares)
	for i := range shares {
		writers.Go(func() {
			if err := w.write(w.servers[i*n/shares : (i+1)*n/shares]); err != nil {
				failed <- err
			}
		})
	}
	writers.Wait()
	return r.wait(ctx, failed, start, 30*time.Second)
}

// write writes the message to each of conns in turn.
func (w *WritesSession) write(conns []net.Conn) error {
	for _, s := range conns {
		if _, err := s.Write(w.msg); err != nil {
			return fmt.Errorf("wsload: writes: %w", err)
		}
	}
	return nil
}

// Close closes the connections and waits for the readers.
func (w *WritesSession) Close() {
	w.closeAll()
	w.readers.Wait()
}
