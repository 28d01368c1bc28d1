package natshub

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// oddTopics are topics that are not subject tokens as they are.
var oddTopics = []string{
	"", ".", "..", "a.", ".a", "a..b", " ", "a b", "*", ">", "a.*.>", "%", "%25", "a.%", "~!@#",
	"ü", "日本.語", "tab\there", "nul\x00byte", "\xff\xfe", "dash-and_underscore", "demo.chat",
}

func TestEncodeTopicMakesValidSubjectTokens(t *testing.T) {
	for _, topic := range oddTopics {
		enc := EncodeTopic(topic)
		for _, tok := range strings.Split(enc, ".") {
			if tok == "" {
				t.Errorf("EncodeTopic(%q) = %q: an empty token", topic, enc)
			}
			if strings.ContainsAny(tok, " \t\r\n*>") || !utf8.ValidString(tok) {
				t.Errorf("EncodeTopic(%q) = %q: token %q is not a subject token", topic, enc, tok)
			}
			for i := 0; i < len(tok); i++ {
				if c := tok[i]; !keptByte(c) && c != '%' && !('A' <= c && c <= 'F') {
					t.Errorf("EncodeTopic(%q) = %q: byte %q", topic, enc, c)
				}
			}
		}
	}
}

func TestEncodeTopicRoundTrips(t *testing.T) {
	seen := map[string]string{}
	for _, topic := range oddTopics {
		enc := EncodeTopic(topic)
		if other, dup := seen[enc]; dup {
			t.Errorf("%q and %q both encode to %q", topic, other, enc)
		}
		seen[enc] = topic
		got, err := DecodeTopic(enc)
		if err != nil || got != topic {
			t.Errorf("DecodeTopic(EncodeTopic(%q) = %q) = %q, %v", topic, enc, got, err)
		}
	}
}

func TestEncodeTopicKeepsPlainTopics(t *testing.T) {
	for _, topic := range []string{"demo.chat", "a", "A-b_c.d.e9"} {
		if enc := EncodeTopic(topic); enc != topic {
			t.Errorf("EncodeTopic(%q) = %q, want it unchanged", topic, enc)
		}
	}
	want := map[string]string{"": "%", "a b": "a%20b", "a..b": "a.%.b", "*": "%2A", ">": "%3E", "ü": "%C3%BC", ".": "%.%"}
	for topic, enc := range want {
		if got := EncodeTopic(topic); got != enc {
			t.Errorf("EncodeTopic(%q) = %q, want %q", topic, got, enc)
		}
	}
}

func TestDecodeTopicRejectsWhatEncodeNeverWrites(t *testing.T) {
	for _, enc := range []string{"a..b", ".", "%2", "%zz", "%61", "%2E", "a%", "%c3%bc", "a b"} {
		if got, err := DecodeTopic(enc); err == nil {
			t.Errorf("DecodeTopic(%q) = %q, want an error", enc, got)
		}
	}
}

func FuzzEncodeTopic(f *testing.F) {
	for _, topic := range oddTopics {
		f.Add(topic)
	}
	f.Fuzz(func(t *testing.T, topic string) {
		enc := EncodeTopic(topic)
		if got, err := DecodeTopic(enc); err != nil || got != topic {
			t.Fatalf("DecodeTopic(EncodeTopic(%q) = %q) = %q, %v", topic, enc, got, err)
		}
	})
}

func TestCheckPrefix(t *testing.T) {
	for _, ok := range []string{"caddy_jsonrpc", "a.b.c", "A-1"} {
		if err := checkPrefix(ok); err != nil {
			t.Errorf("checkPrefix(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "a.", ".a", "a..b", "a b", "a.*", "a.>", "ü"} {
		err := checkPrefix(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "subject_prefix:") {
			t.Errorf("checkPrefix(%q) = %v, want an error naming subject_prefix", bad, err)
		}
	}
}

func TestStreamName(t *testing.T) {
	if got := streamName("caddy_jsonrpc"); got != "caddy_jsonrpc" {
		t.Errorf("streamName(caddy_jsonrpc) = %q", got)
	}
	dotted, underscored := streamName("a.b"), streamName("a_b")
	if dotted == underscored || strings.ContainsAny(dotted, ".*> ") {
		t.Errorf("streamName(a.b) = %q, streamName(a_b) = %q", dotted, underscored)
	}
}
