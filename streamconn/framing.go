package streamconn

// framing.go finds where one JSON value ends in a stream of bytes, reading
// as few of them as it can: it tracks strings and nesting, and leaves
// validating the value to the processor.

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Framing says how messages are delimited on the stream.
type Framing int

const (
	// Values frames messages as JSON values back to back.
	Values Framing = iota
	// ContentLength frames each message behind a Content-Length header.
	ContentLength
)

// String names the framing as the configuration does.
func (f Framing) String() string {
	if f == ContentLength {
		return "content_length"
	}
	return "values"
}

// ParseFraming reads a framing's name: "values" or "content_length".
func ParseFraming(name string) (Framing, error) {
	switch name {
	case "values", "":
		return Values, nil
	case "content_length":
		return ContentLength, nil
	}
	return Values, errors.New("framing " + name + " is not values or content_length")
}

// errUnframeable means the stream holds bytes that no JSON value starts
// with, so the next message cannot be found.
var errUnframeable = errors.New("streamconn: bytes that start no JSON value")

// valueFramer follows one JSON value across reads.
type valueFramer struct {
	started  bool // the value's first byte was seen
	scalar   bool // the value is a number, a literal or a bare word
	inString bool
	escaped  bool // the previous byte inside a string was a backslash
	depth    int  // open arrays and objects
}

// structural marks the bytes that end a bare token outside strings.
var structural = [256]bool{'{': true, '}': true, '[': true, ']': true, ',': true, ':': true, '"': true,
	' ': true, '\t': true, '\r': true, '\n': true}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// skipSpace returns how many bytes of b are whitespace before a value.
func skipSpace(b []byte) int {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scan reads b, which continues the current value (leading whitespace
// already skipped when the value has not started), and returns how many
// of its bytes belong to the value and whether the value ended there.
func (f *valueFramer) scan(b []byte) (n int, complete bool, err error) {
	i := 0
	if !f.started {
		if len(b) == 0 {
			return 0, false, nil
		}
		f.started = true
		switch c := b[0]; c {
		case '{', '[':
			f.depth = 1
		case '"':
			f.inString = true
		case '}', ']', ',', ':':
			return 0, false, errUnframeable
		default:
			if c < ' ' {
				return 0, false, errUnframeable
			}
			f.scalar = true
		}
		i = 1
	}
	if f.scalar {
		for i < len(b) {
			if structural[b[i]] {
				return i, true, nil
			}
			i++
		}
		return i, false, nil
	}
	// The state lives in locals while the loop runs: f may alias nothing,
	// but the compiler cannot know that.
	depth, inString, escaped := f.depth, f.inString, f.escaped
	for i < len(b) {
		if inString {
			if escaped {
				escaped = false
				i++
			}
			i = skipPlainString(b, i)
			if i == len(b) {
				break
			}
			if b[i] == '\\' {
				escaped = true
				i++
				continue
			}
			i++ // the closing quote
			inString = false
			if depth == 0 {
				*f = valueFramer{started: true}
				return i, true, nil
			}
			continue
		}
		for i < len(b) && !bracketOrQuote[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		c := b[i]
		i++
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				*f = valueFramer{started: true}
				return i, true, nil
			}
		}
	}
	f.depth, f.inString, f.escaped = depth, inString, escaped
	return i, false, nil
}

// bracketOrQuote marks the bytes that matter outside strings.
var bracketOrQuote = [256]bool{'{': true, '}': true, '[': true, ']': true, '"': true}

// skipPlainString returns the offset of the first '"' or '\\' in b at or
// after i, or len(b): eight bytes at a time, then one by one.
func skipPlainString(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		q, bs := w^(ones*'"'), w^(ones*'\\')
		if m := ((q-ones)&^q | (bs-ones)&^bs) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(b) && plainInString[b[i]] {
		i++
	}
	return i
}

// plainInString marks the bytes that neither end a string nor escape the
// next one.
var plainInString = func() (t [256]bool) {
	for c := range t {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
