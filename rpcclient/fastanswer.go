package rpcclient

// fastanswer.go reads the answers most servers write, in one pass:
// {"jsonrpc":"2.0","result":R,"id":N} (this module's order) and
// {"jsonrpc":"2.0","id":N,"result":R} (go-ethereum's), with no spaces, N an
// integer and R a number, a string, true, false or null. What it accepts
// is valid JSON text, checked as the scanner checks it; anything else goes
// to the general path.

import (
	"bytes"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

var (
	answerHead   = []byte(`{"jsonrpc":"2.0","`)
	resultMember = []byte(`result":`)
	idMember     = []byte(`id":`)
	idSuffix     = []byte(`,"id":`)
	resultSuffix = []byte(`,"result":`)
)

// readFastAnswer fills m from msg when msg has one of the common shapes,
// and reports whether it did.
func readFastAnswer(msg []byte, m *incoming) bool {
	if !bytes.HasPrefix(msg, answerHead) {
		return false
	}
	rest := msg[len(answerHead):]
	var result, id []byte
	var ok bool
	switch {
	case bytes.HasPrefix(rest, resultMember):
		if result, rest, ok = fastScalar(rest[len(resultMember):]); !ok || !bytes.HasPrefix(rest, idSuffix) {
			return false
		}
		if id, rest, ok = fastInteger(rest[len(idSuffix):]); !ok {
			return false
		}
	case bytes.HasPrefix(rest, idMember):
		if id, rest, ok = fastInteger(rest[len(idMember):]); !ok || !bytes.HasPrefix(rest, resultSuffix) {
			return false
		}
		if result, rest, ok = fastScalar(rest[len(resultSuffix):]); !ok {
			return false
		}
	default:
		return false
	}
	if len(rest) != 1 || rest[0] != '}' {
		return false
	}
	m.id, m.result = id, result
	return true
}

// fastInteger takes a non-negative JSON integer off the front of b.
func fastInteger(b []byte) (n, rest []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || (b[0] == '0' && i > 1) {
		return nil, nil, false
	}
	return b[:i], b[i:], true
}

// fastScalar takes a number, a string, true, false or null off the front
// of b, checked as the scanner checks it.
func fastScalar(b []byte) (v, rest []byte, ok bool) {
	if len(b) == 0 {
		return nil, nil, false
	}
	var end int
	switch c := b[0]; {
	case c == '"':
		end, _, ok = jsontext.ScanString(b, 0)
	case c == '-' || (c >= '0' && c <= '9'):
		end, ok = jsontext.ScanNumber(b, 0)
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(b, []byte(lit)) {
				end, ok = len(lit), true
				break
			}
		}
	}
	if !ok {
		return nil, nil, false
	}
	return b[:end], b[end:], true
}
