package wsload

// writes.go times the least a broadcast can cost on this machine: one
// write system call per subscriber, with no WebSocket, no JSON-RPC and
// nobody reading.

import (
	"fmt"
	"net"
	"time"
)

// Writes opens n loopback TCP connections and returns, for each of runs
// rounds, the time to write a message of size bytes to every one of them
// in turn from one goroutine. The other ends are not read: the bytes wait
// in the socket buffers.
func Writes(n, size, runs int) ([]time.Duration, error) {
	_, servers, closeAll, err := loopbackPairs(n)
	if err != nil {
		return nil, fmt.Errorf("wsload: writes: %w", err)
	}
	defer closeAll()
	msg := make([]byte, size)
	times := make([]time.Duration, 0, runs)
	for range runs {
		start := time.Now()
		for _, s := range servers {
			if _, err := s.Write(msg); err != nil {
				return nil, fmt.Errorf("wsload: writes: %w", err)
			}
		}
		times = append(times, time.Since(start))
	}
	return times, nil
}

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
