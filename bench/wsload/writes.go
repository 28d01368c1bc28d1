package wsload

// writes.go times the least a broadcast can cost on this machine: one
// write system call per subscriber, with no WebSocket, no JSON-RPC and
// nobody reading.

import (
	"context"
	"fmt"
	"net"
	"time"
)

// WritesSession is n loopback TCP connections whose other ends are not
// read: a Broadcaster that times writing a message of size bytes to
// every one of them in turn from one goroutine, the bytes waiting in the
// socket buffers.
type WritesSession struct {
	servers  []net.Conn
	msg      []byte
	closeAll func()
}

// OpenWrites opens the n connections of a WritesSession.
func OpenWrites(n, size int) (*WritesSession, error) {
	_, servers, closeAll, err := loopbackPairs(n)
	if err != nil {
		return nil, fmt.Errorf("wsload: writes: %w", err)
	}
	return &WritesSession{servers: servers, msg: make([]byte, size), closeAll: closeAll}, nil
}

// Publish writes the message to every connection; i is not used.
func (w *WritesSession) Publish(_ context.Context, _ int) (time.Duration, error) {
	start := time.Now()
	for _, s := range w.servers {
		if _, err := s.Write(w.msg); err != nil {
			return 0, fmt.Errorf("wsload: writes: %w", err)
		}
	}
	return time.Since(start), nil
}

// Close closes the connections.
func (w *WritesSession) Close() { w.closeAll() }

// loopbackPairs opens n loopback TCP connections and returns both ends of
// each, and a function that closes them all.
func loopbackPairs(n int) (clients, servers []net.Conn, closeAll func(), err error) {
	closeAll = func() {
		for i := range clients {
			clients[i].Close()
			servers[i].Close()
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	defer l.Close()
	for range n {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			closeAll()
			return nil, nil, nil, err
		}
		s, err := l.Accept()
		if err != nil {
			c.Close()
			closeAll()
			return nil, nil, nil, err
		}
		clients, servers = append(clients, c), append(servers, s)
	}
	return clients, servers, closeAll, nil
}
