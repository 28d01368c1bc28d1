package streamconn

// guess.go takes a line for a JSON value. Clients write one value per
// line nearly always (go-ethereum's, this project's, most others'), and
// finding the newline is much cheaper than following the value's strings
// and nesting. The line goes to the processor as a guess
// (rpccore.Reframer): if it is one valid value, it is the value framing
// would have found; if not (two values on a line, or one value over many
// lines), the peer retracts it and the same bytes are read again, framed.
// After a retraction lines are not guessed again until a value framing
// found ends a line.

import (
	"bytes"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/readbuf"
)

// lineGuess is the state of a connection's guesses.
type lineGuess struct {
	off     bool // a guess was retracted, and no framed value has ended a line since
	pending int  // bytes the last message took when it was a guess, 0 when not; consumed as the next is read
}

// guessed reports whether the last message read was a guess.
func (g *lineGuess) guessed() bool { return g.pending > 0 }

// allowed reports whether the next message may be a guess.
func (g *lineGuess) allowed() bool { return !g.off }

// take appends to dst the line that starts b, leading whitespace left
// out, when it may hold an object or array of at most limit bytes and the
// newline that ends it has arrived. The bytes stay buffered until settle.
func (g *lineGuess) take(dst, b []byte, limit int) ([]byte, bool) {
	skip := skipSpace(b)
	if skip == len(b) || b[skip] != '{' && b[skip] != '[' {
		return dst, false
	}
	nl := bytes.IndexByte(b[skip:], '\n')
	if nl < 0 || nl > limit {
		return dst, false
	}
	g.pending = skip + nl + 1
	return append(dst, b[skip:skip+nl]...), true
}

// settle consumes what the last guess took, unless it was retracted, as
// the next message is read.
func (g *lineGuess) settle(in *readbuf.Reader) {
	if g.pending > 0 {
		in.Consume(g.pending)
	}
	g.pending = 0
}

// retract undoes the last guess, if the last message was one: its bytes
// are read again, framed, and no line is guessed until a framed value ends
// one. It reports whether there was a guess to undo.
func (g *lineGuess) retract() bool {
	if !g.guessed() {
		return false
	}
	*g = lineGuess{off: true}
	return true
}

// valueEnded notes the whitespace that followed a value framing found:
// guessing starts again once a value ends a line.
func (g *lineGuess) valueEnded(space []byte) {
	if g.off && bytes.IndexByte(space, '\n') >= 0 {
		g.off = false
	}
}

// Reframe implements rpccore.Reframer.
func (c *Conn) Reframe() bool { return c.guess.retract() }
