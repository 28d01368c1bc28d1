package wsconn

// readbuf.go reads a connection through a buffer borrowed from a pool only
// while read bytes wait in it, so that an idle connection holds none.

import (
	"io"
	"net"
	"sync"
	"syscall"
)

// readBufferSize is the size of a borrowed read buffer: many small
// pipelined messages per read.
const readBufferSize = 4096

// readBuffers holds the buffers connections borrow to read into.
var readBuffers = sync.Pool{New: func() any {
	b := make([]byte, readBufferSize)
	return &b
}}

// borrowingReader reads conn. Where the connection has a file descriptor
// (plain TCP on Unix), it borrows a buffer only once the descriptor is
// readable, so waiting costs no buffer; elsewhere (TLS, which buffers a
// record itself) it reads straight into the caller's buffer.
type borrowingReader struct {
	conn     net.Conn
	raw      syscall.RawConn // nil where reading the descriptor directly is not possible
	borrowed *[]byte         // the buffer unread points into, when borrowed
	unread   []byte          // bytes read and not yet taken
}

// newBorrowingReader reads conn, starting with early: bytes the client sent
// before the connection was handed over.
func newBorrowingReader(conn net.Conn, early []byte) *borrowingReader {
	r := &borrowingReader{conn: conn, unread: early}
	if sc, ok := conn.(syscall.Conn); ok && canReadRaw {
		if raw, err := sc.SyscallConn(); err == nil {
			r.raw = raw
		}
	}
	return r
}

// Read implements io.Reader.
func (r *borrowingReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.unread) == 0 {
		if r.raw == nil {
			return r.conn.Read(p)
		}
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.unread)
	r.unread = r.unread[n:]
	if len(r.unread) == 0 {
		r.giveBack()
	}
	return n, nil
}

// fill reads at least one byte into a borrowed buffer.
func (r *borrowingReader) fill() error {
	n, err := r.readRaw()
	if n <= 0 {
		r.giveBack()
		if err == nil {
			err = io.EOF
		}
		return err
	}
	// An error that came with bytes comes again on the next read.
	r.unread = (*r.borrowed)[:n]
	return nil
}

// giveBack returns the borrowed buffer, if any.
func (r *borrowingReader) giveBack() {
	r.unread = nil
	if r.borrowed != nil {
		readBuffers.Put(r.borrowed)
		r.borrowed = nil
	}
}
