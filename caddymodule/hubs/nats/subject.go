package natshub

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
)

// Topics are arbitrary strings; NATS subjects are dot-separated tokens that
// must not be empty nor hold spaces, '*' or '>'. A topic maps to subject
// tokens by splitting it at its dots and escaping each piece: letters,
// digits, '-' and '_' stay, every other byte becomes %XX (hex), and an
// empty piece becomes a lone "%". "demo.chat" stays "demo.chat"; "a b.*"
// becomes "a%20b.%2A"; "" becomes "%". The mapping is one to one.

// EncodeTopic returns the subject tokens of topic.
func EncodeTopic(topic string) string {
	if plainTopic(topic) {
		return topic
	}
	var b strings.Builder
	b.Grow(len(topic) + 8)
	start := 0
	for i := 0; i <= len(topic); i++ {
		if i < len(topic) && topic[i] != '.' {
			continue
		}
		if start > 0 {
			b.WriteByte('.')
		}
		appendPiece(&b, topic[start:i])
		start = i + 1
	}
	return b.String()
}

// plainTopic reports whether topic is its own encoding: non-empty pieces
// of kept bytes.
func plainTopic(topic string) bool {
	if topic == "" || topic[0] == '.' || topic[len(topic)-1] == '.' {
		return false
	}
	for i := 0; i < len(topic); i++ {
		c := topic[i]
		if c == '.' {
			if topic[i-1] == '.' {
				return false
			}
		} else if !keptByte(c) {
			return false
		}
	}
	return true
}

// appendPiece writes one dot-free piece of a topic as a subject token.
func appendPiece(b *strings.Builder, piece string) {
	if piece == "" {
		b.WriteByte('%')
		return
	}
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(piece); i++ {
		c := piece[i]
		if keptByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}

// keptByte reports whether c stands for itself in a subject token.
func keptByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// errBadTokens is what DecodeTopic answers for tokens EncodeTopic never
// writes.
var errBadTokens = errors.New("natshub: not an encoded topic")

// DecodeTopic returns the topic whose subject tokens are enc.
func DecodeTopic(enc string) (string, error) {
	var b strings.Builder
	for i, tok := range strings.Split(enc, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		if tok == "%" {
			continue
		}
		if tok == "" {
			return "", errBadTokens
		}
		for j := 0; j < len(tok); j++ {
			c := tok[j]
			if keptByte(c) {
				b.WriteByte(c)
				continue
			}
			if c != '%' || j+2 >= len(tok) {
				return "", errBadTokens
			}
			hi, ok1 := unhex(tok[j+1])
			lo, ok2 := unhex(tok[j+2])
			d := hi<<4 | lo
			if !ok1 || !ok2 || keptByte(d) || d == '.' { // EncodeTopic keeps those as they are
				return "", errBadTokens
			}
			b.WriteByte(d)
			j += 2
		}
	}
	return b.String(), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// checkPrefix reports whether prefix is valid subject tokens made of
// letters, digits, '-' and '_'.
func checkPrefix(prefix string) error {
	if !plainTopic(prefix) {
		return fmt.Errorf("subject_prefix: %q is not a valid prefix: use letters, digits, '-' and '_' in tokens separated by single dots", prefix)
	}
	return nil
}

// streamName returns the JetStream stream of prefix: the prefix with its
// dots made underscores, and then a hash of the prefix so that "a.b" and
// "a_b" keep apart.
func streamName(prefix string) string {
	if !strings.Contains(prefix, ".") {
		return prefix
	}
	h := fnv.New32a()
	h.Write([]byte(prefix))
	return fmt.Sprintf("%s_%08x", strings.ReplaceAll(prefix, ".", "_"), h.Sum32())
}
