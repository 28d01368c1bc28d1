package streamconn

// framing.go finds where one JSON value ends in a stream of bytes, reading
// as few of them as it can: it tracks strings and nesting, and leaves
// validating the value to the processor.

import "errors"

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
	for i < len(b) {
		c := b[i]
		i++
		if f.inString {
			switch {
			case f.escaped:
				f.escaped = false
			case c == '\\':
				f.escaped = true
			case c == '"':
				f.inString = false
				if f.depth == 0 {
					return i, true, nil
				}
			}
			continue
		}
		switch c {
		case '"':
			f.inString = true
		case '{', '[':
			f.depth++
		case '}', ']':
			f.depth--
			if f.depth == 0 {
				return i, true, nil
			}
		}
	}
	return i, false, nil
}
