package policy

// ratelimitreport.go encodes the reports that nodes sharing a rate limit
// zone send each other: which node, when, the message's sequence number
// among that node's, and the events it spent per key since its last
// report. The encoding is binary and versioned:
//
//	'R' 2  uvarint len(node) node  varint sent (Unix nanoseconds)  uvarint seq
//	then per key: uvarint len(key) key  uvarint events
//
// A long report is cut into several messages, each under maxReportBytes
// and with a sequence number of its own. A node sends a message that NATS
// did not confirm again as it was, so a receiver may get one twice:
// seenReports keeps, per node, the last sequence number counted.

import (
	"encoding/binary"
	"errors"
	"sync"
)

// maxReportBytes bounds one report message (NATS refuses messages over its
// max_payload, 1 MiB by default).
const maxReportBytes = 256 << 10

// reportVersion is the encoding's version, the second byte of a message.
const reportVersion = 2

// report is a decoded report message.
type report struct {
	node string
	sent int64  // Unix nanoseconds, by the sender's clock
	seq  uint64 // the message's number among its node's, from 1
	keys []reportedKey
}

// reportedKey is what a node spent on one key.
type reportedKey struct {
	key    string
	events int64
}

// reportWriter builds the messages of one node's reports, numbering
// them.
type reportWriter struct {
	head []byte   // the header every message of the report begins with
	msgs [][]byte // the messages so far, the last one open
	seq  uint64   // the last message's sequence number
}

// begin starts a report of node sent at sent. The messages of the last
// report are not reused: they may still wait to be sent again.
func (w *reportWriter) begin(node string, sent int64) {
	w.head = append(w.head[:0], 'R', reportVersion)
	w.head = binary.AppendUvarint(w.head, uint64(len(node)))
	w.head = append(w.head, node...)
	w.head = binary.AppendVarint(w.head, sent)
	clear(w.msgs)
	w.msgs = w.msgs[:0]
}

// add adds events spent on key.
func (w *reportWriter) add(key string, events int64) {
	n := len(w.msgs)
	if n == 0 || len(w.msgs[n-1])+len(key)+2*binary.MaxVarintLen64 > maxReportBytes {
		w.seq++
		m := append(make([]byte, 0, len(w.head)+binary.MaxVarintLen64), w.head...)
		w.msgs = append(w.msgs, binary.AppendUvarint(m, w.seq))
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
	if len(b) < 2 || b[0] != 'R' || b[1] != reportVersion {
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
	seq, n := binary.Uvarint(b)
	if n <= 0 || seq == 0 {
		return r, errBadReport
	}
	b = b[n:]
	r.node, r.sent, r.seq = string(node), sent, seq
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

// seenReports is what a receiver knows of the messages it counted: per
// node, the last sequence number and when that message was sent. A node
// sends its messages in order, and a message again only before any later
// one, so a message numbered at most the last counted is a copy.
type seenReports struct {
	mu     sync.Mutex
	last   map[string]seenReport
	pruned int64 // when nodes silent for a window were last forgotten
}

// seenReport is the last message counted of one node.
type seenReport struct {
	seq  uint64
	sent int64
}

// first reports whether r is the first copy of its message to come, and
// notes it. Nodes whose last message is older than window (at now, Unix
// nanoseconds) are forgotten, once a window at most: a copy of one of
// their messages is older still, and dropped for its age.
func (s *seenReports) first(r *report, now, window int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now-s.pruned > window {
		for node, last := range s.last {
			if now-last.sent > window {
				delete(s.last, node)
			}
		}
		s.pruned = now
	}
	if last, ok := s.last[r.node]; ok && r.seq <= last.seq {
		return false
	}
	if s.last == nil {
		s.last = make(map[string]seenReport)
	}
	s.last[r.node] = seenReport{seq: r.seq, sent: r.sent}
	return true
}
