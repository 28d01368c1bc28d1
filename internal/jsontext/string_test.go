package jsontext

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestAppendQuoteNeverWritesInvalidUTF8 checks that invalid input becomes
// \ufffd, and that the literal reads back as encoding/json has the input.
func TestAppendQuoteNeverWritesInvalidUTF8(t *testing.T) {
	for _, s := range []string{
		"plain", "é€😀", "\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98",
		"\x00\x1f\"\\\n\r\t\x7f", "<&>", "\u2028", "x\xe2\x82y",
	} {
		got := AppendQuote([]byte("prefix:"), s)
		lit := got[len("prefix:"):]
		if !utf8.Valid(lit) || !Valid(lit) {
			t.Errorf("AppendQuote(%q) = %q: not valid", s, lit)
		}
		want, _ := json.Marshal(s)
		var back, wantBack string
		if err := json.Unmarshal(lit, &back); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("AppendQuote(%q) = %s reads as %q, encoding/json's %s as %q", s, lit, back, want, wantBack)
		}
	}
	if got := string(AppendQuote(nil, []byte("a\"b"))); got != `"a\"b"` {
		t.Errorf("AppendQuote of bytes = %s", got)
	}
}

// TestAppendUnquote checks every escape against encoding/json.
func TestAppendUnquote(t *testing.T) {
	for _, lit := range []string{
		`""`, `"plain"`, `"é"`, `"\"\\\/\b\f\n\r\t"`, `"\u0000\u001f\u00e9\u20ac"`, `"\ud83d\ude00"`,
		`"a\uD83D\uDE00b\u0041"`, `"\ud7ff\ue000\uffff"`, `"mixed é \n 😀"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		if got := AppendUnquote([]byte("x"), []byte(lit[1:len(lit)-1])); string(got) != "x"+want {
			t.Errorf("AppendUnquote(%s) = %q, want %q", lit, got[1:], want)
		}
	}
}
