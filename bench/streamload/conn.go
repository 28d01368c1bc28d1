// Package streamload is the raw-stream side of the load generator: JSON-RPC
// over a TCP or unix-socket connection, requests written back to back each
// followed by a newline, answers read line by line (ours ends every answer
// with "\n", and go-ethereum's IPC codec does too). Dialer hands Conn to
// package pipeline, which drives the pipelined calls and opens the idle
// connections; Flood measures the items per second of one subscription.
// Every answer and every notification is checked.
//
// Like package load it only ever connects to this machine: a TCP address
// must be a loopback IP or "localhost", and every dial is checked again
// after name resolution.
package streamload

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

// Conn is a client stream connection. One goroutine reads; writes may come
// from any goroutine.
type Conn struct {
	nc net.Conn
	br *bufio.Reader
	hr *hookReader // under br

	wmu sync.Mutex // guards bw
	bw  *bufio.Writer
}

// maxLine bounds a line read, against a confused server.
const maxLine = 64 << 20

// Dial connects to addr on network "tcp" (a loopback address) or "unix".
func Dial(ctx context.Context, network, addr string) (*Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	switch network {
	case "tcp":
		if err := load.CheckLoopbackAddr(addr); err != nil {
			return nil, err
		}
		d.Control = load.LoopbackOnly
	case "unix":
	default:
		return nil, fmt.Errorf("streamload: network %q: want tcp or unix", network)
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
	return newConn(nc), nil
}

// Dialer dials network and addr as Dial does, for pipeline.Run.
func Dialer(network, addr string) func(context.Context) (pipeline.Conn, error) {
	return func(ctx context.Context) (pipeline.Conn, error) { return Dial(ctx, network, addr) }
}

func newConn(nc net.Conn) *Conn {
	hr := &hookReader{r: nc}
	return &Conn{nc: nc, br: bufio.NewReaderSize(hr, 64<<10), hr: hr, bw: bufio.NewWriterSize(nc, 64<<10)}
}

// hookReader reads r, calling beforeRead (when set) before each read:
// under the buffered reader, each read is one the buffer could not spare.
type hookReader struct {
	r          io.Reader
	beforeRead func()
}

// Read implements io.Reader.
func (h *hookReader) Read(p []byte) (int, error) {
	if h.beforeRead != nil {
		h.beforeRead()
	}
	return h.r.Read(p)
}

// WriteMany writes msgs, each followed by a newline, in one network write
// (or as few as the buffer allows).
func (c *Conn) WriteMany(msgs ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, m := range msgs {
		if _, err := c.bw.Write(m); err != nil {
			return err
		}
		if err := c.bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return c.bw.Flush()
}

// ReadMessage returns the next line, an answer, without its newline. The
// slice is valid until the next read: it lies in the reader's buffer, or,
// for a line longer than the buffer, in a slice of its own (dst is not
// used: it may be the previous answer, in the buffer).
func (c *Conn) ReadMessage(_ []byte) ([]byte, error) {
	line, err := c.br.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], nil
	}
	dst := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(dst) > maxLine {
			return nil, errors.New("streamload: line too long")
		}
		line, err = c.br.ReadSlice('\n')
		dst = append(dst, line...)
	}
	if err != nil {
		return nil, err
	}
	return dst[:len(dst)-1], nil
}

// BeforeReadWait sets f, called on the reading goroutine each time a read
// is about to read the network because the buffer cannot complete the
// line, which may wait for the server.
func (c *Conn) BeforeReadWait(f func()) { c.hr.beforeRead = f }

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }
