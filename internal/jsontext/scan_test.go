package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
)

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
	for _, doc := range []string{`[1,]`, `[1 2]`, "[\"\x01\"]", `[1`} {
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
// nothing.
func TestValidAllocations(t *testing.T) {
	doc := []byte(`{"jsonrpc":"2.0","method":"x","params":{"a":[1,"\u00e9"],"b":{"c":null,"d":"é"},"\u0065":true},"id":1}`)
	if got := testing.AllocsPerRun(100, func() { Valid(doc) }); got != 0 {
		t.Errorf("Valid allocates %v times", got)
	}
}
