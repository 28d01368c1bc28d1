package policy

// ratelimitreport.go encodes the reports that nodes sharing a rate limit
// zone send each other: which node, when, and the events it spent per key
// since its last report. The encoding is binary and versioned:
//
//	'R' 1  uvarint len(node) node  varint sent (Unix nanoseconds)
//	then per key: uvarint len(key) key  uvarint events
//
// A long report is cut into several, each under maxReportBytes.

import (
	"encoding/binary"
	"errors"
)

// maxReportBytes bounds one report message (NATS refuses messages over its
// max_payload, 1 MiB by default).
const maxReportBytes = 256 << 10

// report is a decoded report.
type report struct {
	node string
	sent int64 // Unix nanoseconds, by the sender's clock
	keys []reportedKey
}

// reportedKey is what a node spent on one key.
type reportedKey struct {
	key    string
	events int64
}

// reportWriter builds the messages of one report.
type reportWriter struct {
	head []byte   // the header every message begins with
	msgs [][]byte // the messages so far, the last one open
}

// begin starts a report of node sent at sent, reusing the
// buffers of w's last use.
func (w *reportWriter) begin(node string, sent int64) {
	w.head = append(w.head[:0], 'R', 1)
	w.head = binary.AppendUvarint(w.head, uint64(len(node)))
	w.head = append(w.head, node...)
	w.head = binary.AppendVarint(w.head, sent)
	w.msgs = w.msgs[:0]
}

// add adds events spent on key.
func (w *reportWriter) add(key string, events int64) {
	n := len(w.msgs)
	if n == 0 || len(w.msgs[n-1])+len(key)+2*binary.MaxVarintLen64 > maxReportBytes {
		w.msgs = append(w.msgs, append([]byte(nil), w.head...))
		n++
	}
	m := binary.AppendUvarint(w.msgs[n-1], uint64(len(key)))
	m = append(m, key...)
	w.msgs[n-1] = binary.AppendUvarint(m, uint64(events))
}

// errBadReport is what decodeReport answers for bytes no node encoded.
var errBadReport = errors.New("not a rate limit report")

// decodeReport decodes a message; the keys are copies.
func decodeReport(b []byte) (report, error) {
	var r report
	if len(b) < 2 || b[0] != 'R' || b[1] != 1 {
		return r, errBadReport
	}
	b = b[2:]
	node, b, ok := readBytes(b)
	if !ok {
		return r, errBadReport
	}
	sent, n := binary.Varint(b)
	if n <= 0 {
		return r, errBadReport
	}
	b = b[n:]
	r.node, r.sent = string(node), sent
	for len(b) > 0 {
		var key []byte
		if key, b, ok = readBytes(b); !ok {
			return r, errBadReport
		}
		events, n := binary.Uvarint(b)
		if n <= 0 || events == 0 || events > 1<<40 {
			return r, errBadReport
		}
		b = b[n:]
		r.keys = append(r.keys, reportedKey{key: string(key), events: int64(events)})
	}
	return r, nil
}

// readBytes reads a length-prefixed byte string off b.
func readBytes(b []byte) (s, rest []byte, ok bool) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return nil, nil, false
	}
	return b[n : n+int(l)], b[n+int(l):], true
}
