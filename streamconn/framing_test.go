package streamconn

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
)

// frame feeds the chunks to a valueFramer the way readValue does and
// returns the values it found.
func frame(t *testing.T, chunks ...string) (values []string, err error) {
	t.Helper()
	var f valueFramer
	var cur []byte
	for _, chunk := range chunks {
		b := []byte(chunk)
		for len(b) > 0 {
			if !f.started {
				b = b[skipSpace(b):]
				if len(b) == 0 {
					break
				}
			}
			n, complete, err := f.scan(b)
			if err != nil {
				return values, err
			}
			cur = append(cur, b[:n]...)
			b = b[n:]
			if complete {
				values = append(values, string(cur))
				cur, f = nil, valueFramer{}
			}
		}
	}
	return values, nil
}

func TestValueFraming(t *testing.T) {
	for _, tt := range []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"one per line", []string{"{\"a\":1}\n{\"b\":2}\n"}, []string{`{"a":1}`, `{"b":2}`}},
		{"back to back", []string{`{"a":1}[2]{"c":{}}`}, []string{`{"a":1}`, `[2]`, `{"c":{}}`}},
		{"split across reads", []string{`{"a":`, `[1,`, `2]}`, ` {"b"`, `:"}"}`}, []string{`{"a":[1,2]}`, `{"b":"}"}`}},
		{"brackets inside strings", []string{`{"x":"]}{[","y":"\"}"}`}, []string{`{"x":"]}{[","y":"\"}"}`}},
		{"escaped backslash before a quote", []string{`["\\"]["a"]`}, []string{`["\\"]`, `["a"]`}},
		{"escape split across reads", []string{`["\`, `"]"]`, `{}`}, []string{`["\"]"]`, `{}`}},
		{"bare words end at whitespace or a bracket", []string{"hello 12{}\ttrue\n"}, []string{"hello", "12", "{}", "true"}},
		{"a string", []string{`"abc" "d\"e"`}, []string{`"abc"`, `"d\"e"`}},
		{"whitespace only", []string{" \r\n\t "}, nil},
		{"mismatched brackets still end", []string{`{]`, `[}`}, []string{`{]`, `[}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := frame(t, tt.chunks...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("values %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnframeableBytes(t *testing.T) {
	for _, in := range []string{"}", "]", ",", ":", "\x01", `{"a":1},{"b":2}`} {
		if _, err := frame(t, in); err != errUnframeable {
			t.Errorf("%q: error %v, want errUnframeable", in, err)
		}
	}
}

func TestBareByteByByte(t *testing.T) {
	doc := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	chunks := strings.Split(doc+doc, "")
	got, err := frame(t, chunks...)
	if err != nil || len(got) != 2 || got[0] != doc || got[1] != doc {
		t.Fatalf("values %q, %v", got, err)
	}
}

func TestParseFraming(t *testing.T) {
	for name, want := range map[string]Framing{"": Values, "values": Values, "content_length": ContentLength} {
		if got, err := ParseFraming(name); err != nil || got != want {
			t.Errorf("ParseFraming(%q) = %v, %v", name, got, err)
		}
		if want.String() != name && name != "" {
			t.Errorf("%v.String() = %q, want %q", want, want.String(), name)
		}
	}
	if _, err := ParseFraming("lines"); err == nil {
		t.Error("ParseFraming accepted lines")
	}
}

func TestContentLengthHeader(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   int
		ok     bool
	}{
		{"Content-Length: 52", 52, true},
		{"content-length:7", 7, true},
		{"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 3", 3, true},
		{"Content-Length: -1", 0, false},
		{"Content-Length: x", 0, false},
		{"Content-Length: 1\r\nContent-Length: 2", 0, false},
		{"Content-Type: a/b", 0, false},
		{"no colon", 0, false},
	} {
		n, err := contentLength([]byte(tt.header))
		if (err == nil) != tt.ok || n != tt.want {
			t.Errorf("%q: %d, %v", tt.header, n, err)
		}
	}
}

// FuzzFraming checks that where values end does not depend on how the
// bytes are split across reads, and that a valid JSON value followed by
// another is framed as exactly itself.
func FuzzFraming(f *testing.F) {
	for _, seed := range []string{
		`{"a":[1,"]"]}{"b":"\\"}"}`, `["\\\\"]["\""]`, `"x" 12 true {}`, `{"s":"\u00e9\\n"}[[[]]]`,
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, `}`, `["\`,
	} {
		f.Add([]byte(seed), uint8(3), uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut1, cut2 uint8) {
		whole, errWhole := frame(t, string(in))
		a, b := int(cut1)%(len(in)+1), int(cut2)%(len(in)+1)
		if a > b {
			a, b = b, a
		}
		split, errSplit := frame(t, string(in[:a]), string(in[a:b]), string(in[b:]))
		if (errWhole == nil) != (errSplit == nil) || strings.Join(whole, "\x00") != strings.Join(split, "\x00") {
			t.Fatalf("framed whole %q (%v), split at %d and %d %q (%v)", whole, errWhole, a, b, split, errSplit)
		}
		v := strings.TrimSpace(string(in))
		if json.Valid(in) && v != "" && (v[0] == '{' || v[0] == '[' || v[0] == '"') {
			doubled, err := frame(t, string(in)+string(in))
			if err != nil || len(doubled) != 2 || doubled[0] != v || doubled[1] != v {
				t.Fatalf("a valid value twice framed as %q, %v", doubled, err)
			}
		}
	})
}

// readAll reads in through a Conn as a peer does, retracting every guess
// that keep refuses, and returns the messages it answers.
func readAll(t *testing.T, in []byte, keep func(msg []byte) bool) []string {
	server, client := net.Pipe()
	go func() {
		client.Write(in)
		client.Close()
	}()
	c := New(server, nil, Options{})
	defer c.Close()
	var got []string
	for {
		msg, err := c.ReadMessage(context.Background(), nil)
		if err != nil {
			return got
		}
		if c.guess.guessed() && !keep(msg) {
			if !c.Reframe() {
				t.Fatal("a guess could not be retracted")
			}
			continue
		}
		got = append(got, strings.TrimSpace(string(msg)))
	}
}

// FuzzLineGuesses checks that reading with guesses (a line taken for a
// value, retracted unless it is one valid value, as the peer does) gives
// the messages that reading with every guess retracted, framing alone,
// gives, whatever the input.
func FuzzLineGuesses(f *testing.F) {
	for _, seed := range []string{
		"{\"a\":1}\n{\"b\":2}\n", "{\"a\":1}{\"b\":2}\n[3]\n", "{\n\"a\":\n1}\n{}\n", "{x}\n[1]\r\n",
		" [1,\n2] \n\n{\"s\":\"\\n\"}\n", "{\"a\":\"\n\"}\n{}\n", "1 2\n[]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		guessed := readAll(t, in, json.Valid)
		framed := readAll(t, in, func([]byte) bool { return false })
		if strings.Join(guessed, "\x00") != strings.Join(framed, "\x00") {
			t.Fatalf("with guesses %q, framed %q", guessed, framed)
		}
	})
}
