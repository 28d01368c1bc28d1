// Package readbuf reads a connection through a buffer borrowed from a pool
// only while read bytes wait in it, so that an idle connection holds no
// read buffer. Where the connection has a file descriptor (plain TCP and
// unix sockets on Unix) the buffer is borrowed once the descriptor is
// readable; elsewhere (TLS, which buffers a record itself) Read reads
// straight into the caller's buffer and Fill borrows while it waits.
package readbuf

import (
	"io"
	"net"
	"sync"
	"syscall"
)

// Size is the size of a borrowed buffer: a pipelining client's window of
// small messages (256 calls of about 60 bytes) fits one read, where 4 KiB
// took four. It is held only while read bytes wait, so idle connections
// hold none.
const Size = 16 << 10

// buffers holds the buffers readers borrow.
var buffers = sync.Pool{New: func() any {
	b := make([]byte, Size)
	return &b
}}

// Reader reads a connection. It is not safe for concurrent use.
type Reader struct {
	conn     net.Conn
	raw      syscall.RawConn // nil where reading the descriptor directly is not possible
	borrowed *[]byte         // the buffer unread points into, when borrowed
	unread   []byte          // bytes read and not yet taken

	// readRaw's state, kept here so that a read allocates nothing.
	readFD func(fd uintptr) bool // r.readDescriptor, made once
	rawN   int
	rawErr error

	// BeforeRead, when set, is called each time the reader is about to read
	// the connection because nothing is buffered, which may wait for the
	// network: the owner can finish work it batched while bytes kept
	// coming. It runs on the reading goroutine.
	BeforeRead func()
}

// New returns a Reader of conn that starts with early: bytes the client
// sent before the connection was handed over.
func New(conn net.Conn, early []byte) *Reader {
	r := &Reader{conn: conn, unread: early}
	if sc, ok := conn.(syscall.Conn); ok && canReadRaw {
		if raw, err := sc.SyscallConn(); err == nil {
			r.raw = raw
			r.readFD = r.readDescriptor
		}
	}
	return r
}

// Direct reports whether the reader reads the descriptor itself, holding
// no buffer while it waits.
func (r *Reader) Direct() bool { return r.raw != nil }

// Holding reports whether the reader holds a borrowed buffer.
func (r *Reader) Holding() bool { return r.borrowed != nil }

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.unread) == 0 {
		if r.raw == nil {
			if r.BeforeRead != nil {
				r.BeforeRead()
			}
			return r.conn.Read(p)
		}
		if err := r.Fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.unread)
	r.Consume(n)
	return n, nil
}

// Buffered returns the bytes read and not yet consumed. They stay valid
// until the next Consume or Fill.
func (r *Reader) Buffered() []byte { return r.unread }

// Consume drops the first n buffered bytes, and gives the buffer back once
// none are left.
func (r *Reader) Consume(n int) {
	r.unread = r.unread[n:]
	if len(r.unread) == 0 {
		r.giveBack()
	}
}

// Fill waits until at least one byte is buffered. Bytes still buffered are
// kept; Fill reads only when none are.
func (r *Reader) Fill() error {
	if len(r.unread) > 0 {
		return nil
	}
	if r.BeforeRead != nil {
		r.BeforeRead()
	}
	var n int
	var err error
	if r.raw != nil {
		n, err = r.readRaw()
	} else {
		r.borrowed = buffers.Get().(*[]byte)
		n, err = r.conn.Read(*r.borrowed)
	}
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
func (r *Reader) giveBack() {
	r.unread = nil
	if r.borrowed != nil {
		buffers.Put(r.borrowed)
		r.borrowed = nil
	}
}
