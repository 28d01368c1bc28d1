package msgload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// StreamConn is a client stream connection: requests written back to back,
// each followed by a newline, answers read line by line (ours ends every
// answer with "\n", and go-ethereum's IPC codec does too). One goroutine
// reads; writes may come from any goroutine.
type StreamConn struct {
	nc  net.Conn
	br  *bufio.Reader
	hr  *hookReader // under br
	wmu sync.Mutex  // guards bw
	bw  *bufio.Writer
}

// DialStream connects to addr on network "tcp" (a loopback address) or
// "unix".
func DialStream(ctx context.Context, network, addr string) (*StreamConn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	switch network {
	case "tcp":
		if err := load.CheckLoopbackAddr(addr); err != nil {
			return nil, err
		}
		d.Control = load.LoopbackOnly
	case "unix":
	default:
		return nil, fmt.Errorf("msgload: network %q: want tcp or unix", network)
	}
	nc, err := d.DialContext(ctx, network, addr)
	// A unix socket whose backlog is full refuses at once (EAGAIN) where
	// TCP would wait: wait here instead, as a TCP dial does.
	for try := 0; errors.Is(err, syscall.EAGAIN) && try < 1000; try++ {
		time.Sleep(time.Millisecond)
		nc, err = d.DialContext(ctx, network, addr)
	}
	if err != nil {
		return nil, err
	}
	return newStreamConn(nc), nil
}

// StreamDialer dials network and addr as DialStream does, for pipeline.Run.
func StreamDialer(network, addr string) func(context.Context) (pipeline.Conn, error) {
	return func(ctx context.Context) (pipeline.Conn, error) { return DialStream(ctx, network, addr) }
}

func newStreamConn(nc net.Conn) *StreamConn {
	hr := &hookReader{r: nc}
	return &StreamConn{nc: nc, br: bufio.NewReaderSize(hr, 64<<10), hr: hr, bw: bufio.NewWriterSize(nc, 64<<10)}
}

// hookReader reads r, calling beforeRead (when set) before each read:
// under the buffered reader, each read is one the buffer could not spare.
type hookReader struct {
	r          io.Reader
	beforeRead func()
}

func (h *hookReader) Read(p []byte) (int, error) {
	if h.beforeRead != nil {
		h.beforeRead()
	}
	return h.r.Read(p)
}

// WriteMany writes msgs, each followed by a newline, in one network write
// (or as few as the buffer allows).
func (c *StreamConn) WriteMany(msgs ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, m := range msgs {
		c.bw.Write(m) // bufio.Writer keeps the first error for Flush
		c.bw.WriteByte('\n')
	}
	return c.bw.Flush()
}

// ReadMessage returns the next line, an answer, without its newline. The
// slice is valid until the next read: it lies in the reader's buffer, or,
// for a line longer than the buffer, in a slice of its own (dst is not
// used: it may be the previous answer, in the buffer).
func (c *StreamConn) ReadMessage(_ []byte) ([]byte, error) {
	line, err := c.br.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], nil
	}
	dst := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(dst) > maxMessage {
			return nil, errors.New("msgload: line too long")
		}
		line, err = c.br.ReadSlice('\n')
		dst = append(dst, line...)
	}
	if err != nil {
		return nil, err
	}
	return dst[:len(dst)-1], nil
}

// BeforeReadWait implements pipeline.Conn: f runs before each read of the
// network, when the buffer cannot complete the line.
func (c *StreamConn) BeforeReadWait(f func()) { c.hr.beforeRead = f }

// Close closes the connection.
func (c *StreamConn) Close() error { return c.nc.Close() }
