package wsload

// conn.go reads and writes frames with github.com/gobwas/ws: masked text
// frames out, whole messages in, pings answered.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"

	"github.com/gobwas/ws"
)

// Conn is a client WebSocket connection. One goroutine reads; writes may
// come from any goroutine.
type Conn struct {
	nc     net.Conn
	br     *bufio.Reader
	header [ws.MaxHeaderSize - 2]byte // the reader's

	wmu     sync.Mutex // guards bw, scratch and wheader
	bw      *bufio.Writer
	scratch []byte
	wheader [ws.MaxHeaderSize]byte
}

// ErrClosed is returned by ReadMessage when the server closed the
// connection with a close frame.
var ErrClosed = errors.New("wsload: connection closed by the server")

// maxMessage bounds a message read, against a confused server.
const maxMessage = 64 << 20

// Write queues one text message; Flush sends what is queued.
func (c *Conn) Write(msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrame(ws.OpText, msg)
}

// Flush sends the queued messages.
func (c *Conn) Flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.bw.Flush()
}

// Send writes one text message and flushes it.
func (c *Conn) Send(msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.writeFrame(ws.OpText, msg); err != nil {
		return err
	}
	return c.bw.Flush()
}

// WriteMany queues msgs and flushes them together, under one lock.
func (c *Conn) WriteMany(msgs ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, m := range msgs {
		if err := c.writeFrame(ws.OpText, m); err != nil {
			return err
		}
	}
	return c.bw.Flush()
}

// writeFrame appends one final frame, masked as a client's must be, to
// bw; c.wmu is held.
func (c *Conn) writeFrame(op ws.OpCode, payload []byte) error {
	h := ws.Header{Fin: true, OpCode: op, Masked: true, Mask: ws.NewMask(), Length: int64(len(payload))}
	if err := ws.WriteHeaderBuffer(c.bw, h, c.wheader[:]); err != nil {
		return err
	}
	c.scratch = append(c.scratch[:0], payload...)
	ws.Cipher(c.scratch, h.Mask, 0)
	_, err := c.bw.Write(c.scratch)
	return err
}

// ReadMessage appends the next text or binary message to dst[:0] and
// returns it. It answers pings, skips pongs, and returns ErrClosed for a
// close frame.
func (c *Conn) ReadMessage(dst []byte) ([]byte, error) {
	dst = dst[:0]
	state := ws.StateClientSide // server frames must not be masked
	for {
		h, err := ws.ReadHeaderBuffer(c.br, c.header[:])
		if err != nil {
			return dst, err
		}
		if err := ws.CheckHeader(h, state); err != nil {
			return dst, fmt.Errorf("wsload: %w", err)
		}
		if uint64(len(dst))+uint64(h.Length) > maxMessage {
			return dst, fmt.Errorf("wsload: message over %d bytes", maxMessage)
		}
		start := len(dst)
		payload := slices.Grow(dst, int(h.Length))[:start+int(h.Length)]
		if _, err := io.ReadFull(c.br, payload[start:]); err != nil {
			return dst, err
		}
		switch h.OpCode {
		case ws.OpPing:
			c.wmu.Lock()
			err := c.writeFrame(ws.OpPong, payload[start:])
			if err == nil {
				err = c.bw.Flush()
			}
			c.wmu.Unlock()
			if err != nil {
				return dst, err
			}
			continue
		case ws.OpPong:
			continue
		case ws.OpClose:
			return dst, ErrClosed
		}
		dst = payload
		if h.Fin {
			return dst, nil
		}
		state = state.Set(ws.StateFragmented)
	}
}

// Buffered is the number of bytes read from the network and not yet
// consumed: zero means the next read waits for the server.
func (c *Conn) Buffered() int { return c.br.Buffered() }

// Close closes the connection without a closing handshake.
func (c *Conn) Close() error { return c.nc.Close() }
