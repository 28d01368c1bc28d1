package jsontext

import (
	"encoding/json"
	"math/bits"
	"strings"
	"testing"
)

// TestValidStrictRules holds the rules beyond RFC 8259's grammar: strings
// of valid UTF-8, no escaped lone surrogate, no member name twice.
func TestValidStrictRules(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      bool
	}{
		{"two to four byte sequences", "[\"\xc3\xa9\", \"\xe2\x82\xac\", \"\xf0\x9f\x98\x80\", \"\xef\xbf\xbd\"]", true},
		{"multi-byte after eight plain bytes", "\"abcdefgh\xc3\xa9ijklmnop\xf0\x9f\x98\x80\"", true},
		{"stray continuation byte", "\"\x80\"", false},
		{"0xff", "\"ab\xffcd\"", false},
		{"truncated sequence", "\"\xe2\x82\"", false},
		{"truncated at the end", "\"\xf0\x9f\x98", false},
		{"overlong encoding", "\"\xc0\xaf\"", false},
		{"UTF-8 encoded surrogate", "\"\xed\xa0\x80\"", false},
		{"last code point before the surrogates", "\"\xed\x9f\xbf\"", true},
		{"beyond U+10FFFF", "\"\xf4\x90\x80\x80\"", false},
		{"invalid UTF-8 in a member name", "{\"\xff\":1}", false},
		{"invalid UTF-8 deep inside", "{\"a\":[1,{\"b\":[\"\xc3\"]}]}", false},
		{"escaped pair", `"\ud83d\ude00"`, true},
		{"escaped pair, upper case", `"\uD83D\uDE00"`, true},
		{"lone high surrogate", `"\ud800"`, false},
		{"lone low surrogate", `"\udc00"`, false},
		{"low before high", `"\udc00\ud800"`, false},
		{"high then a letter", `"\ud800\u0041"`, false},
		{"high then high", `"\ud800\udbff"`, false},
		{"high then an escaped backslash", `"\ud800\\udc00"`, false},
		{"high at the end", `"a\ud800"`, false},
		{"lone surrogate in a member name", `{"\udfff":1}`, false},
		{"distinct names", `{"a":1,"b":2,"A":3}`, true},
		{"the same name twice", `{"a":1,"a":2}`, false},
		{"the same name, once escaped", `{"a":1,"\u0061":2}`, false},
		{"the same name, both escaped differently", `{"\/":1,"\u002f":2}`, false},
		{"the same name as a pair and as UTF-8", `{"\ud83d\ude00":1,"😀":2}`, false},
		{"the empty name twice", `{"":1,"":2}`, false},
		{"the same name in sibling objects", `{"a":{"a":1},"b":{"a":2}}`, true},
		{"the same name in array elements", `[{"a":1},{"a":1}]`, true},
		{"the same name in a nested object", `[{"x":{"b":1,"b":2}}]`, false},
		{"after sixteen names", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"a":18}`, false},
		{"after sixteen names, escaped", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"\u0071":18}`, false},
		{"seventeen distinct names", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}`, true},
	} {
		if got := Valid([]byte(c.doc)); got != c.want {
			t.Errorf("%s: Valid(%q) = %t, want %t", c.name, c.doc, got, c.want)
		}
	}
}

// TestValidGrammar checks RFC 8259's grammar against encoding/json.Valid,
// on documents that the strict rules do not touch.
func TestValidGrammar(t *testing.T) {
	for _, doc := range []string{
		`0`, `-0`, `01`, `1.`, `.5`, `1e`, `1e+`, `1E-5`, `-`, `+1`, `1.5e300`, `1e400`, `-01`,
		`true`, `tru`, `nul`, `null `, " \t\r\n[] ", `[]]`, `[1,]`, `[,1]`, `{"a":}`, `{,}`, `{"a" 1}`,
		`{"a":1,}`, `[1 2]`, `1 2`, ``, ` `, "\"\x00\"", "\"\x1f\"", "\"\x7f\"", `"\u0000"`, `"\u00"`,
		`"\uzzzz"`, `"\x"`, `"\`, `"abc`, `{"a":1`, `[`, `{`, "\v1", `[1]x`, `"\/\b\f\n\r\t\"\\"`,
	} {
		if got, want := Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
			t.Errorf("Valid(%q) = %t, encoding/json says %t", doc, got, want)
		}
	}
}

func TestValidDepth(t *testing.T) {
	nest := func(open, mid, close string, n int) []byte {
		return []byte(strings.Repeat(open, n) + mid + strings.Repeat(close, n))
	}
	for _, c := range []struct {
		name string
		doc  []byte
		want bool
	}{
		{"arrays at the limit", nest("[", "", "]", MaxDepth), true},
		{"arrays past the limit", nest("[", "", "]", MaxDepth+1), false},
		{"objects at the limit", nest(`{"a":`, "1", "}", MaxDepth), true},
		{"objects past the limit", nest(`{"a":`, "1", "}", MaxDepth+1), false},
	} {
		if got := Valid(c.doc); got != c.want {
			t.Errorf("%s: Valid = %t, want %t", c.name, got, c.want)
		}
	}
}

// TestScannerDepth checks that the scanner measures the deepest nesting.
func TestScannerDepth(t *testing.T) {
	s := Scanner{Buf: []byte(`[1,[2,{"a":[3]}],[]]`)}
	if !s.Value() || s.Depth != 0 || s.Deepest != 4 || s.Pos != len(s.Buf) {
		t.Fatalf("Depth %d, Deepest %d, Pos %d; want 0, 4, %d", s.Depth, s.Deepest, s.Pos, len(s.Buf))
	}
}

// TestArrayElements checks where Array says the first elements lie.
func TestArrayElements(t *testing.T) {
	for _, c := range []struct {
		doc  string
		n    int
		want []string
	}{
		{`[]`, 0, nil},
		{`[ ]`, 0, nil},
		{`[1,2]`, 2, []string{"1", "2"}},
		{`[ "a\"" , -1.5e3 ,{"x":[1]}, null]`, 4, []string{`"a\""`, "-1.5e3", `{"x":[1]}`, "null"}},
		{`[1,2,3,4,5,6]`, 6, []string{"1", "2", "3", "4"}},
	} {
		s := Scanner{Buf: []byte(c.doc)}
		e := Elements{N: -1}
		if !s.Array(&e) || s.Pos != len(c.doc) || s.Depth != 0 {
			t.Fatalf("Array(%s) failed or stopped at %d", c.doc, s.Pos)
		}
		if e.N != c.n {
			t.Fatalf("Array(%s): N = %d, want %d", c.doc, e.N, c.n)
		}
		for k, want := range c.want {
			if got := c.doc[e.At[k][0]:e.At[k][1]]; got != want {
				t.Errorf("Array(%s): element %d is %q, want %q", c.doc, k, got, want)
			}
		}
	}
	for _, doc := range []string{`[1,]`, `[1 2]`, "[\"\xff\"]", `[{"a":1,"a":2}]`, `[1`} {
		s := Scanner{Buf: []byte(doc)}
		if s.Array(&Elements{}) {
			t.Errorf("Array(%q) accepted it", doc)
		}
	}
}

// TestScanStringReportsEscapes checks the escaped result that lets callers
// skip unescaping.
func TestScanStringReportsEscapes(t *testing.T) {
	for doc, escaped := range map[string]bool{`"plain"`: false, `"é"`: false, `"a\nb"`: true, `"\u00e9"`: true} {
		end, esc, ok := ScanString([]byte(doc+","), 0)
		if !ok || end != len(doc) || esc != escaped {
			t.Errorf("ScanString(%s) = %d, %t, %t; want %d, %t, true", doc, end, esc, ok, len(doc), escaped)
		}
	}
}

// TestValidAllocations holds the promise that validating allocates
// nothing for objects of up to sixteen members.
func TestValidAllocations(t *testing.T) {
	doc := []byte(`{"jsonrpc":"2.0","method":"x","params":{"a":[1,"\u00e9"],"b":{"c":null,"d":"é"},"\u0065":true},"id":1}`)
	if got := testing.AllocsPerRun(100, func() { Valid(doc) }); got != 0 {
		t.Errorf("Valid allocates %v times", got)
	}
}

// TestStopBytes checks the lowest mark against a byte-at-a-time reading,
// for every byte value at every position among plain bytes and after
// other stop bytes.
func TestStopBytes(t *testing.T) {
	fills := []byte{'a', ' ', '~', 0x21, 0x5b, 0x5d}
	for c := 0; c < 256; c++ {
		for pos := range 8 {
			for _, fill := range fills {
				for _, before := range []int{-1, 0x00, 0x1f, '"', '\\', 0x80, 0xff} {
					var b [8]byte
					for k := range b {
						b[k] = fill
					}
					b[pos] = byte(c)
					if before >= 0 && pos < 7 {
						b[7] = byte(before)
					}
					want := 8
					for k, x := range b {
						if !plainByte[x] {
							want = k
							break
						}
					}
					m := stopBytes(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
						uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
					got := 8
					if m != 0 {
						got = bits.TrailingZeros64(m) >> 3
					}
					if got != want {
						t.Fatalf("stopBytes(% x): first stop at %d, want %d", b, got, want)
					}
				}
			}
		}
	}
}
