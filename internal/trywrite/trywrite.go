// Package trywrite writes to a socket without waiting: as much as the
// socket takes at once, nothing when it takes nothing. A hub delivering a
// broadcast writes each subscriber's notification this way from its own
// goroutine, where a write that could wait would let one slow subscriber
// hold up every other.
package trywrite

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// Writer writes to one connection without waiting. Its zero value, and a
// Writer for a connection that gives no access to its socket (a TLS
// connection), writes nothing.
type Writer struct {
	raw syscall.RawConn
}

// New returns a Writer for nc.
func New(nc net.Conn) Writer {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return Writer{}
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Writer{}
	}
	return Writer{raw: raw}
}

// Able reports whether w can write at all.
func (w Writer) Able() bool { return w.raw != nil && supported }

// Write writes a prefix of b, as long as the socket takes at once, and
// returns its length: 0 when the socket's buffer is full, and when its
// write deadline has passed (the caller's blocking write sets a new one).
// An error is the connection's: closed, or failed.
func (w Writer) Write(b []byte) (int, error) {
	if !w.Able() || len(b) == 0 {
		return 0, nil
	}
	var n int
	var werr error
	err := w.raw.Write(func(fd uintptr) bool {
		n, werr = writeOnce(fd, b)
		return true // never wait for the socket to take more
	})
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, nil
	case err != nil:
		return 0, err
	}
	return n, werr
}
