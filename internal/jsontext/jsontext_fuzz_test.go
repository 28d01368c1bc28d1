//go:build goexperiment.jsonv2

package jsontext

// The differential fuzz target against Go's encoding/json/jsontext, in the
// standard library behind GOEXPERIMENT=jsonv2:
//
//	GOEXPERIMENT=jsonv2 go test -run XXX -fuzz FuzzValidJSONText ./internal/jsontext/

import (
	stdjsontext "encoding/json/jsontext"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonTextSeeds are the cases where the two are most likely to part:
// the strict rules, their near misses, and the grammar's corners.
var jsonTextSeeds = []string{
	`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
	`{"jsonrpc":"2.0","method":"StringMe","params":["Foo"],"id":5}`,
	"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd\"",
	"\"\xff\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xed\x9f\xbf\"", "\"\xf4\x90\x80\x80\"",
	"\"\xf0\x9f\x98\"", "[\"a\xe2\x82\"]", "{\"\xff\":1}", "\xef\xbb\xbf{}",
	`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\udbff"`, `"\ud800\udc00"`, `"\udbff\udfff"`,
	`"\uD83D\uDE00"`, `"\ud800\\udc00"`, `"\ud800\n"`, `"\u00"`, `"\uzzzz"`, `"\x"`,
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"a":1},"b":{"a":2}}`, `[{"a":1},{"a":1}]`,
	`{"a":{"b":1,"b":2}}`, `{"":1,"":2}`, `{"\/":1,"/":2}`, `{"\ud83d\ude00":1,"😀":2}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"a":18}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"\u0071":18}`,
	`0`, `-0`, `01`, `1.`, `.5`, `1e`, `1e+`, `1E-5`, `-`, `+1`, `1.5e300`, `1e400`,
	`true`, `tru`, `nul`, `null `, " \t\r\n[] ", `[]]`, `[1,]`, `{"a":}`, `{,}`, `[1 2]`, `1 2`, ``, ` `,
	"\"\x00\"", "\"\x1f\"", "\"\x7f\"", `"\u0000"`,
}

// TestDepthJSONText checks that Valid and jsontext agree on the depth
// bound, which documents too large to fuzz well reach.
func TestDepthJSONText(t *testing.T) {
	for _, depth := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		for _, doc := range []string{
			strings.Repeat("[", depth) + strings.Repeat("]", depth),
			strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth),
			strings.Repeat(`[{"":`, depth/2) + "[" + strings.Repeat("}]", depth/2) + "]",
		} {
			if got, want := Valid([]byte(doc)), stdjsontext.Value(doc).IsValid(); got != want {
				t.Errorf("depth %d, %.10s...: Valid = %t, jsontext says %t", depth, doc, got, want)
			}
		}
	}
}

// FuzzValidJSONText checks that Valid accepts exactly what jsontext
// accepts with its default options, and that AppendQuote's output of any
// bytes is valid there and reads back as the input when that was UTF-8.
func FuzzValidJSONText(f *testing.F) {
	for _, seed := range jsonTextSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := stdjsontext.Value(b).IsValid()
		if got := Valid(b); got != want {
			t.Fatalf("Valid(%q) = %t, jsontext says %t", b, got, want)
		}
		quoted := AppendQuote(nil, b)
		if !stdjsontext.Value(quoted).IsValid() {
			t.Fatalf("AppendQuote(%q) = %q, not valid for jsontext", b, quoted)
		}
		if utf8.Valid(b) {
			back, err := stdjsontext.AppendUnquote(nil, quoted)
			if err != nil || string(back) != string(b) {
				t.Fatalf("AppendQuote(%q) = %q, which jsontext reads as %q (%v)", b, quoted, back, err)
			}
		}
		if want && len(b) > 0 {
			// Every string in b unquotes as jsontext has it.
			dec := stdjsontext.NewDecoder(strings.NewReader(string(b)))
			for kind := dec.PeekKind(); kind != 0; kind = dec.PeekKind() {
				if kind != '"' {
					if _, err := dec.ReadToken(); err != nil {
						t.Fatal(err)
					}
					continue
				}
				raw, err := dec.ReadValue()
				if err != nil {
					t.Fatal(err)
				}
				want, _ := stdjsontext.AppendUnquote(nil, raw)
				if got := AppendUnquote(nil, raw[1:len(raw)-1]); string(got) != string(want) {
					t.Fatalf("AppendUnquote(%q) = %q, jsontext says %q", raw, got, want)
				}
			}
		}
	})
}
