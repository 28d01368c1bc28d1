package wsconn

// close.go holds the closing handshake (RFC 6455, sections 5.5.1 and 7):
// the status codes, what a peer's close frame may hold, and closing a
// connection from this side.

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// StatusCode is a close status of RFC 6455, section 7.4.
type StatusCode uint16

// The close statuses this package sends, and 1005, which stands for a close
// frame without a status.
const (
	StatusNormalClosure   StatusCode = 1000
	StatusGoingAway       StatusCode = 1001
	StatusProtocolError   StatusCode = 1002
	StatusNoStatus        StatusCode = 1005 // never sent: a close frame with no body
	StatusInvalidPayload  StatusCode = 1007 // a text message or close reason that is not UTF-8
	StatusPolicyViolation StatusCode = 1008
	StatusMessageTooBig   StatusCode = 1009
)

// CloseError is what ReadMessage returns once the peer has closed the
// connection with a close frame (which this side has answered).
type CloseError struct {
	Code   StatusCode // StatusNoStatus when the frame had no body
	Reason string
}

// Error implements error.
func (e *CloseError) Error() string {
	return fmt.Sprintf("wsconn: the peer closed the connection with status %d %q", e.Code, e.Reason)
}

// failure is what ReadMessage returns when the peer broke the protocol or
// a limit: this side has sent a close frame with code.
type failure struct {
	code StatusCode
	err  error
	// answersFirst says the close frame waits for the answers already
	// due, which the peer writes for an rpccore.ErrEndOfInput.
	answersFirst bool
}

// Is makes a failure whose close frame waits for the answers
// rpccore.ErrEndOfInput.
func (f *failure) Is(target error) bool { return f.answersFirst && target == rpccore.ErrEndOfInput }

// Error implements error.
func (f *failure) Error() string {
	return fmt.Sprintf("wsconn: closed with status %d: %v", f.code, f.err)
}

// Unwrap returns what went wrong.
func (f *failure) Unwrap() error { return f.err }

// closeTimeout bounds each half of a closing handshake: writing this
// side's close frame, and waiting for the peer's (and, on the client side,
// for the server to close the TCP connection).
const closeTimeout = 5 * time.Second

// maxReason is the most bytes of a close reason: a control frame's
// payload is at most 125 bytes, two of which hold the status.
const maxReason = ws.MaxControlFramePayloadSize - 2

// closeBody returns the payload of a close frame: the status and the
// reason, made valid UTF-8 and cut at a character boundary to fit. A
// frame for StatusNoStatus has no payload.
func closeBody(code StatusCode, reason string) []byte {
	if code == StatusNoStatus {
		return nil
	}
	if !utf8.ValidString(reason) {
		reason = strings.ToValidUTF8(reason, string(utf8.RuneError))
	}
	if len(reason) > maxReason {
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut]
	}
	return ws.NewCloseFrameBody(ws.StatusCode(code), reason)
}

// parseClose reads the payload of a peer's close frame. It returns the
// status and reason, or the status this side must close with instead
// when the frame is invalid (fail is 0 when it is valid): 1002 for a
// 1-byte payload or a status that must not be sent, 1007 for a reason
// that is not UTF-8.
func parseClose(p []byte) (code StatusCode, reason string, fail StatusCode) {
	switch len(p) {
	case 0:
		return StatusNoStatus, "", 0
	case 1:
		return 0, "", StatusProtocolError
	}
	c, reason := ws.ParseCloseFrameData(p)
	checked := c
	switch {
	case c >= 1012 && c <= 1014:
		// Registered with IANA after RFC 6455 (service restart, try again
		// later, bad gateway); the library does not know them yet, so
		// only the reason is checked.
		checked = ws.StatusNormalClosure
	case c >= 5000:
		// Outside every range of section 7.4.2.
		return 0, "", StatusProtocolError
	}
	switch err := ws.CheckCloseFrameData(checked, reason); err {
	case nil:
		return StatusCode(c), reason, 0
	case ws.ErrProtocolInvalidUTF8:
		return 0, "", StatusInvalidPayload
	default:
		return 0, "", StatusProtocolError
	}
}

// Close closes the connection with the given status and reason (made
// valid UTF-8 and cut to fit a control frame), waiting up to 5 seconds
// for the peer's closing frame unless it came already, and on the client
// side for the server to close the TCP connection, as RFC 6455 (section
// 7.1.1) would have it. It reads from the connection: no ReadMessage may
// run meanwhile.
func (c *Conn) Close(code StatusCode, reason string) error {
	err := c.cork.writeClose(closeBody(code, reason))
	if err == nil {
		c.awaitClose()
	}
	if cerr := c.cork.nc.Close(); err == nil {
		err = cerr
	}
	return err
}

// CloseNow closes the connection without a closing handshake.
func (c *Conn) CloseNow() error { return c.cork.nc.Close() }

// finish ends the connection after reading stopped: a closing handshake
// this side began (it failed the connection) is waited for, as Close
// does; otherwise the connection closes at once.
func (c *Conn) finish() {
	if c.cork.sentClose() {
		c.awaitClose()
	}
	_ = c.CloseNow()
}

// awaitClose waits, for at most closeTimeout, for the rest of a closing
// handshake that this side began or answered: the peer's close frame
// unless it came already, and then, on the client side, the end of the
// TCP connection, which the server closes first.
func (c *Conn) awaitClose() {
	client := c.side == ws.StateClientSide
	if c.closeReceived && !client {
		return
	}
	_ = c.cork.nc.SetReadDeadline(time.Now().Add(closeTimeout))
	if !c.closeReceived && !c.discardUntilClose() {
		return
	}
	if client {
		_, _ = io.Copy(io.Discard, c.rd) // until the server closes
	}
}

// discardUntilClose reads and discards frames until the peer's close
// frame, whose payload it leaves unread, and reports whether it came. The
// rest of a frame this side refused (skip bytes) is discarded first.
func (c *Conn) discardUntilClose() bool {
	if _, err := io.CopyN(io.Discard, c.rd, c.skip); err != nil {
		return false
	}
	for {
		h, err := ws.ReadHeaderBuffer(c.rd, c.header[:])
		if err != nil {
			return false
		}
		if h.OpCode == ws.OpClose {
			return true
		}
		if _, err := io.CopyN(io.Discard, c.rd, h.Length); err != nil {
			return false
		}
	}
}
