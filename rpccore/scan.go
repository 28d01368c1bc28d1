package rpccore

// scan.go holds the JSON validator: one pass over a document that checks it
// against RFC 8259 (the grammar encoding/json.Valid accepts) and measures its
// nesting depth. It never allocates and never builds values.

import (
	"encoding/binary"
	"math/bits"
)

// maxValidDepth is the deepest nesting encoding/json accepts; deeper documents
// are rejected as invalid JSON so that both agree on what is JSON.
const maxValidDepth = 10000

// scanner walks a document held in buf. pos is the offset of the next byte to
// read; depth and maxDepth count the open and deepest containers.
type scanner struct {
	buf      []byte
	pos      int
	depth    int
	maxDepth int
	bad      bool
}

// isSpace reports whether c is JSON insignificant whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// skipSpace advances past whitespace.
func (s *scanner) skipSpace() {
	for s.pos < len(s.buf) && isSpace(s.buf[s.pos]) {
		s.pos++
	}
}

// peek returns the next non-space byte without consuming it, or 0 at the end.
// Compact JSON has no whitespace, so the first test usually decides.
func (s *scanner) peek() byte {
	if s.pos < len(s.buf) {
		if c := s.buf[s.pos]; c > ' ' {
			return c
		}
	}
	s.skipSpace()
	if s.pos < len(s.buf) {
		return s.buf[s.pos]
	}
	return 0
}

// fail marks the document invalid and returns false for chaining.
func (s *scanner) fail() bool {
	s.bad = true
	return false
}

// value validates one JSON value starting at the next non-space byte.
func (s *scanner) value() bool {
	switch s.peek() {
	case '{':
		return s.object()
	case '[':
		return s.array(nil)
	case '"':
		_, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

// enter opens a container and checks the depth bound.
func (s *scanner) enter() bool {
	s.pos++
	s.depth++
	if s.depth > s.maxDepth {
		s.maxDepth = s.depth
		if s.depth > maxValidDepth {
			return s.fail()
		}
	}
	return true
}

// object validates an object; the next byte is '{'.
func (s *scanner) object() bool {
	if !s.enter() {
		return false
	}
	if s.peek() == '}' {
		s.pos++
		s.depth--
		return true
	}
	for {
		if s.peek() != '"' {
			return s.fail()
		}
		if _, ok := s.str(); !ok {
			return false
		}
		if s.peek() != ':' {
			return s.fail()
		}
		s.pos++
		if !s.value() {
			return s.fail()
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return true
		default:
			return s.fail()
		}
	}
}

// array validates an array; the next byte is '['. When p is not nil it
// counts the elements and records where the first ones lie, relative to
// the array's start. Numbers and strings, the usual elements, are read
// here; other values through value.
func (s *scanner) array(p *callParams) bool {
	start := s.pos
	if !s.enter() {
		return false
	}
	buf := s.buf
	i := skipSpaceAt(buf, s.pos)
	if p != nil {
		p.n = 0
	}
	if i < len(buf) && buf[i] == ']' {
		s.pos = i + 1
		s.depth--
		return true
	}
	n := 0
	for {
		at := i
		if i >= len(buf) {
			s.pos = i
			return s.fail()
		}
		var ok bool
		switch c := buf[i]; {
		case c == '"':
			i, _, ok = scanString(buf, i)
		case c >= '0' && c <= '9' || c == '-':
			i, ok = scanNumber(buf, i)
		default:
			s.pos = i
			ok = s.value()
			i = s.pos
		}
		if !ok {
			s.pos = i
			return s.fail()
		}
		if p != nil {
			if n < len(p.at) {
				p.at[n] = [2]int32{int32(at - start), int32(i - start)}
			}
			n++
		}
		if i = skipSpaceAt(buf, i); i < len(buf) {
			switch buf[i] {
			case ',':
				i = skipSpaceAt(buf, i+1)
				continue
			case ']':
				s.pos = i + 1
				s.depth--
				if p != nil {
					p.n = n
				}
				return true
			}
		}
		s.pos = i
		return s.fail()
	}
}

// literal consumes the exact word w.
func (s *scanner) literal(w string) bool {
	if len(s.buf)-s.pos < len(w) || string(s.buf[s.pos:s.pos+len(w)]) != w {
		return s.fail()
	}
	s.pos += len(w)
	return true
}

// str validates a string starting at '"' and reports whether it held a
// backslash escape. On return pos is just past the closing quote.
func (s *scanner) str() (escaped bool, ok bool) {
	end, escaped, ok := scanString(s.buf, s.pos)
	s.pos = end
	if !ok {
		s.bad = true
	}
	return escaped, ok
}

// scanString validates the string starting at buf[i] == '"'. It returns
// the offset just past the closing quote (or where it went wrong) and
// whether the string held a backslash escape.
func scanString(buf []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		// Fast path: plain bytes, eight at a time, then one by one.
		for i+8 <= len(buf) {
			if m := specialBytes(binary.LittleEndian.Uint64(buf[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(buf) && plainStringByte[buf[i]] {
			i++
		}
		if i >= len(buf) {
			return i, false, false
		}
		switch c := buf[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(buf) {
				return i, false, false
			}
			switch buf[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(buf) || !isHex(buf[i+2]) || !isHex(buf[i+3]) || !isHex(buf[i+4]) || !isHex(buf[i+5]) {
					return i, false, false
				}
				i += 6
			default:
				return i, false, false
			}
		default: // control character
			return i, false, false
		}
	}
}

// number validates a number per the JSON grammar.
func (s *scanner) number() bool {
	end, ok := scanNumber(s.buf, s.pos)
	if !ok {
		return s.fail()
	}
	s.pos = end
	return true
}

// scanNumber validates the number starting at buf[i] and returns the
// offset just past it.
func scanNumber(buf []byte, i int) (end int, ok bool) {
	if i < len(buf) && buf[i] == '-' {
		i++
	}
	switch {
	case i >= len(buf):
		return i, false
	case buf[i] == '0':
		i++
	case buf[i] >= '1' && buf[i] <= '9':
		i++
		for i < len(buf) && isDigit(buf[i]) {
			i++
		}
	default:
		return i, false
	}
	if i < len(buf) && buf[i] == '.' {
		i++
		if i >= len(buf) || !isDigit(buf[i]) {
			return i, false
		}
		for i < len(buf) && isDigit(buf[i]) {
			i++
		}
	}
	if i < len(buf) && (buf[i] == 'e' || buf[i] == 'E') {
		i++
		if i < len(buf) && (buf[i] == '+' || buf[i] == '-') {
			i++
		}
		if i >= len(buf) || !isDigit(buf[i]) {
			return i, false
		}
		for i < len(buf) && isDigit(buf[i]) {
			i++
		}
	}
	return i, true
}

// skipSpaceAt returns the offset of the first non-space byte at or after i.
func skipSpaceAt(buf []byte, i int) int {
	for i < len(buf) && buf[i] <= ' ' && isSpace(buf[i]) {
		i++
	}
	return i
}

// specialBytes marks, with the high bit of each byte, the bytes of w
// (eight bytes read little-endian) that stop the plain run of a string: a
// control character, '"' or '\\'. Only the lowest mark is sure to be exact,
// which is all a scan needs.
func specialBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := (w - ones*0x20) &^ w
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return (control | (quote-ones)&^quote | (backslash-ones)&^backslash) & highs
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// plainStringByte marks the bytes that may appear in a string without ending
// it or starting an escape: everything but '"', '\\' and control characters.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Valid reports whether doc is one JSON value with nothing but whitespace
// around it, accepting exactly what encoding/json.Valid accepts.
func Valid(doc []byte) bool {
	s := scanner{buf: doc}
	if !s.value() {
		return false
	}
	s.skipSpace()
	return s.pos == len(doc)
}
