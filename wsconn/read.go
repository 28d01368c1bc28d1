package wsconn

// read.go reads the peer's frames (RFC 6455, section 5): whole messages
// out of data frames, control frames answered as they come, and the
// connection failed with the status the RFC asks for when the peer breaks
// the protocol.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/gobwas/ws"
)

// ErrMessageTooBig is matched (errors.Is) by the error of a ReadMessage
// that met a message over the MaxMessage limit (and closed with 1009).
var ErrMessageTooBig = errors.New("message too big")

// Why ReadMessage fails a connection.
var (
	errInvalidUTF8 = errors.New("text message is not valid UTF-8")
	errBadClose    = errors.New("invalid close frame")
)

// ReadMessage implements rpccore.MessageConn: it appends the next text or
// binary message to dst, answering pings and reading pongs on the way.
// A text message must be valid UTF-8 (else close 1007; on a connection
// that Serve serves, the check is made by Reframe, for the messages the
// peer refused); a binary one is not checked. A message over the limit (Options.MaxMessage,
// DialOptions.MaxMessage) closes the connection with 1009 before its
// payload is read, a broken frame with 1002 (a client's frames must be
// masked, a server's must not be); the error then names the status sent.
// A close frame from the peer ends reading with a *CloseError. Its context
// is not used: a read ends when the connection closes or InterruptRead is
// called.
func (c *Conn) ReadMessage(_ context.Context, dst []byte) ([]byte, error) {
	c.unchecked = nil
	if c.interrupted.Load() {
		return dst, errReadInterrupted
	}
	if c.failed != nil {
		return dst, c.failed
	}
	start := len(dst)
	state := c.side // which frames must be masked
	var op ws.OpCode
	for {
		h, err := ws.ReadHeaderBuffer(c.rd, c.header[:])
		if err != nil {
			return dst, err
		}
		if err := ws.CheckHeader(h, state); err != nil {
			c.skip = h.Length
			return dst, c.fail(StatusProtocolError, err)
		}
		if h.OpCode.IsControl() {
			if err := c.readControl(h); err != nil {
				return dst, err
			}
			continue
		}
		if !state.Fragmented() {
			op = h.OpCode
		}
		if h.Length > c.maxMessage-int64(len(dst)-start) {
			c.skip = h.Length
			return dst, c.fail(StatusMessageTooBig, fmt.Errorf("%w: over %d bytes", ErrMessageTooBig, c.maxMessage))
		}
		if dst, err = c.readPayload(dst, h); err != nil {
			return dst, err
		}
		if !h.Fin {
			state = state.Set(ws.StateFragmented)
			continue
		}
		if op == ws.OpText {
			if c.served {
				c.unchecked = dst[start:]
			} else if !utf8.Valid(dst[start:]) {
				return dst, c.fail(StatusInvalidPayload, errInvalidUTF8)
			}
		}
		c.life.Add(1)
		return dst, nil
	}
}

// growStep bounds how far a payload's buffer grows ahead of the bytes
// that arrived: past it, the buffer grows as they come, not by what the
// header announces.
const growStep = 64 << 10

// Reframe implements rpccore.Reframer, for a connection that Serve serves,
// whose text messages ReadMessage does not check for UTF-8: the peer calls
// it for every message it did not find to be one valid JSON value (which
// is UTF-8 throughout), and it then checks the message. It reports true
// when the message was text and not UTF-8, after failing the connection
// with 1007, which the next ReadMessage returns: the message is not
// answered. Of a message that is UTF-8, or binary, it reports false.
func (c *Conn) Reframe() bool {
	msg := c.unchecked
	c.unchecked = nil
	if msg == nil || utf8.Valid(msg) {
		return false
	}
	c.failed = c.fail(StatusInvalidPayload, errInvalidUTF8)
	return true
}

// readPayload appends the unmasked payload of the data frame h to dst.
func (c *Conn) readPayload(dst []byte, h ws.Header) ([]byte, error) {
	for done := int64(0); done < h.Length; {
		rest := h.Length - done
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, int(min(rest, growStep)))
		}
		chunk := dst[len(dst):cap(dst)]
		if int64(len(chunk)) > rest {
			chunk = chunk[:rest]
		}
		if _, err := io.ReadFull(c.rd, chunk); err != nil {
			return dst, err
		}
		if h.Masked {
			ws.Cipher(chunk, h.Mask, int(done))
		}
		dst = dst[:len(dst)+len(chunk)]
		done += int64(len(chunk))
	}
	return dst, nil
}

// readControl reads the payload of the control frame h (at most 125 bytes:
// ws.CheckHeader saw to it) and acts on it: a ping is answered, a pong
// counts as a sign of life, and a close frame ends reading.
func (c *Conn) readControl(h ws.Header) error {
	p := c.control[:h.Length]
	if _, err := io.ReadFull(c.rd, p); err != nil {
		return err
	}
	if h.Masked {
		ws.Cipher(p, h.Mask, 0)
	}
	switch h.OpCode {
	case ws.OpPing:
		return c.cork.writeControl(ws.OpPong, p)
	case ws.OpPong:
		c.life.Add(1)
		c.pongArrived()
		return nil
	default: // ws.OpClose
		return c.readClose(p)
	}
}

// readClose answers the peer's close frame, whose payload is p: a valid
// one is echoed with its status (RFC 6455, section 5.5.1), and reading
// ends with a *CloseError; an invalid one fails the connection with 1002,
// or 1007 when its reason is not UTF-8.
func (c *Conn) readClose(p []byte) error {
	c.closeReceived = true
	code, reason, fail := parseClose(p)
	if fail != 0 {
		return c.fail(fail, errBadClose)
	}
	_ = c.cork.writeClose(closeBody(code, ""))
	return &CloseError{Code: code, Reason: reason}
}

// fail returns the failure, of status code, that ends reading, and sends
// its close frame: at once, or on a connection that Serve serves (unless
// the peer is closing it already) once the answers to the messages read
// before are written: the failure is then rpccore.ErrEndOfInput too, and
// Serve writes the close frame after them.
func (c *Conn) fail(code StatusCode, err error) error {
	f := &failure{code: code, err: err}
	if c.served && !c.closeReceived {
		f.answersFirst = true
		return f
	}
	_ = c.cork.writeClose(closeBody(code, err.Error()))
	return f
}
