package jsontext

// The validator: one pass over a document that checks it (see the package
// doc for what is valid) and measures its nesting depth. It never builds
// values.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// MaxDepth is the most containers a valid document may nest one inside
// another, the bound encoding/json and jsontext apply.
const MaxDepth = 10000

// Scanner validates the document held in Buf, one value at a time, from
// Pos, the offset of the next byte to read. Depth counts the containers
// open at Pos and Deepest the most that were open at once. Callers reading
// a container themselves open it with [Scanner.Enter] and end it with
// [Scanner.Close].
type Scanner struct {
	Buf     []byte
	Pos     int
	Depth   int
	Deepest int
}

// Elements records, for an array read by [Scanner.Array], how many elements
// it has and where the first of them lie, relative to the array's '['.
type Elements struct {
	N  int         // elements in the array; callers may use -1 for "not counted"
	At [4][2]int32 // start and end offsets of the first elements
}

// Valid reports whether doc is one valid JSON value with nothing but
// whitespace around it.
func Valid(doc []byte) bool {
	s := Scanner{Buf: doc}
	if !s.Value() {
		return false
	}
	s.SkipSpace()
	return s.Pos == len(doc)
}

// isSpace reports whether c is JSON insignificant whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// SkipSpace returns the offset of the first non-space byte of buf at or
// after i (len(buf) when there is none).
func SkipSpace(buf []byte, i int) int {
	for i < len(buf) && buf[i] <= ' ' && isSpace(buf[i]) {
		i++
	}
	return i
}

// SkipSpace advances Pos past whitespace.
func (s *Scanner) SkipSpace() { s.Pos = SkipSpace(s.Buf, s.Pos) }

// Peek returns the next non-space byte without consuming it, or 0 at the
// end. Compact JSON has no whitespace, so the first test usually decides.
func (s *Scanner) Peek() byte {
	for ; s.Pos < len(s.Buf); s.Pos++ {
		if c := s.Buf[s.Pos]; c > ' ' || !isSpace(c) {
			return c
		}
	}
	return 0
}

// Value validates one JSON value starting at the next non-space byte and
// leaves Pos just past it.
func (s *Scanner) Value() bool {
	switch s.Peek() {
	case '{':
		return s.object()
	case '[':
		return s.Array(nil)
	case '"':
		end, _, ok := ScanString(s.Buf, s.Pos)
		s.Pos = end
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		end, ok := ScanNumber(s.Buf, s.Pos)
		s.Pos = end
		return ok
	}
}

// Enter opens the container whose bracket is at Pos and checks the depth
// bound.
func (s *Scanner) Enter() bool {
	s.Pos++
	s.Depth++
	if s.Depth > s.Deepest {
		s.Deepest = s.Depth
		if s.Depth > MaxDepth {
			return false
		}
	}
	return true
}

// Close ends the container whose closing bracket is at Buf[i].
func (s *Scanner) Close(i int) {
	s.Pos = i + 1
	s.Depth--
}

// object validates an object; the next byte is '{'.
func (s *Scanner) object() bool {
	if !s.Enter() {
		return false
	}
	if s.Peek() == '}' {
		s.Close(s.Pos)
		return true
	}
	var names Names
	for {
		if s.Peek() != '"' {
			return false
		}
		start := s.Pos
		end, escaped, ok := ScanString(s.Buf, start)
		s.Pos = end
		if !ok || !names.Add(s.Buf, start+1, end-1, escaped) {
			return false
		}
		if s.Peek() != ':' {
			return false
		}
		s.Pos++
		if !s.Value() {
			return false
		}
		switch s.Peek() {
		case ',':
			s.Pos++
		case '}':
			s.Close(s.Pos)
			return true
		default:
			return false
		}
	}
}

// Array validates an array; the next byte is '['. When e is not nil it
// counts the elements and records where the first ones lie. Numbers and
// strings, the usual elements, are read here; other values through Value.
func (s *Scanner) Array(e *Elements) bool {
	start := s.Pos
	if !s.Enter() {
		return false
	}
	buf := s.Buf
	i := SkipSpace(buf, s.Pos)
	if e != nil {
		e.N = 0
	}
	if i < len(buf) && buf[i] == ']' {
		s.Close(i)
		return true
	}
	n := 0
	for {
		at := i
		if i >= len(buf) {
			return false
		}
		var ok bool
		switch c := buf[i]; {
		case c == '"':
			i, _, ok = ScanString(buf, i)
		case c >= '0' && c <= '9' || c == '-':
			i, ok = ScanNumber(buf, i)
		default:
			s.Pos = i
			ok = s.Value()
			i = s.Pos
		}
		if !ok {
			return false
		}
		if e != nil {
			if n < len(e.At) {
				e.At[n] = [2]int32{int32(at - start), int32(i - start)}
			}
			n++
		}
		if i = SkipSpace(buf, i); i < len(buf) {
			switch buf[i] {
			case ',':
				i = SkipSpace(buf, i+1)
				continue
			case ']':
				s.Close(i)
				if e != nil {
					e.N = n
				}
				return true
			}
		}
		return false
	}
}

// literal consumes the exact word w.
func (s *Scanner) literal(w string) bool {
	if len(s.Buf)-s.Pos < len(w) || string(s.Buf[s.Pos:s.Pos+len(w)]) != w {
		return false
	}
	s.Pos += len(w)
	return true
}

// ScanString validates the string starting at buf[i] == '"'. It returns
// the offset just past the closing quote (or where it went wrong) and
// whether the string held a backslash escape.
func ScanString(buf []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		// Fast path: plain ASCII, eight bytes at a time, then one by one.
		for i+8 <= len(buf) {
			if m := stopBytes(binary.LittleEndian.Uint64(buf[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(buf) && plainByte[buf[i]] {
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
			n := escapeLen(buf[i:])
			if n == 0 {
				return i, false, false
			}
			i += n
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(buf[i:])
			if r == utf8.RuneError && size == 1 {
				return i, false, false
			}
			i += size
		default: // control character
			return i, false, false
		}
	}
}

// escapeLen returns the length of the escape sequence at the start of b
// (b[0] == '\\'): 2 for a short escape, 6 for \uXXXX, 12 for a surrogate
// pair, and 0 when it is not valid, a lone surrogate included.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		r, ok := hex4(b[2:6])
		switch {
		case !ok || r >= 0xdc00 && r <= 0xdfff:
			return 0
		case r < 0xd800 || r > 0xdbff:
			return 6
		}
		// A high surrogate: a low one must follow.
		if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
			return 0
		}
		if r2, ok := hex4(b[8:12]); !ok || r2 < 0xdc00 || r2 > 0xdfff {
			return 0
		}
		return 12
	}
	return 0
}

// stopBytes marks, with the high bit of each byte, the bytes of w (eight
// bytes read little-endian) that stop the plain ASCII run of a string: a
// control character, '"', '\\' or a byte of a multi-byte UTF-8 sequence.
// Each subtraction sets the high bit of the bytes below its bound (0x20,
// or 1 after the XOR that makes '"' and '\\' zero) and of some at 0x80 and
// above, which w's own high bits mark anyway; a borrow can only mark bytes
// above a marked one. So the lowest mark is exact, which is all a scan
// needs.
func stopBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return (w | (w - ones*0x20) | (quote - ones) | (backslash - ones)) & highs
}

// ScanNumber validates the number starting at buf[i] and returns the
// offset just past it.
func ScanNumber(buf []byte, i int) (end int, ok bool) {
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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
