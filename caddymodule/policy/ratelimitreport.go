package policy

// ratelimitreport.go encodes the messages that nodes sharing a rate limit
// zone send each other. A report says which node, when, the message's
// number among that node's, and the events it spent per key since its
// last report; an ask names the node asking and, per node, the number
// after which it wants that node's reports again. The encoding is binary
// and versioned:
//
//	report: 'R' 2  uvarint len(node) node  varint sent (Unix nanoseconds)  uvarint seq
//	        then per key: uvarint len(key) key  uvarint events
//	ask:    'A' 2  uvarint len(node) node  byte all
//	        then per node asked: uvarint len(node) node  uvarint after
//
// A long report is cut into several messages, each under maxReportBytes
// and with a number of its own. A node may get a report twice (one sent
// again, or asked for again): seenReports counts each once.

import (
	"encoding/binary"
	"errors"
)

// maxReportBytes bounds one report message (NATS refuses messages over its
// max_payload, 1 MiB by default).
const maxReportBytes = 256 << 10

// reportVersion is the encoding's version, the second byte of a message.
const reportVersion = 2

// The first byte of a message: what it is.
const (
	kindReport = 'R'
	kindAsk    = 'A'
)

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
	msgs []outMsg // the messages so far, the last one open
	sent int64    // when the report was made
	seq  uint64   // the last message's number
}

// begin starts a report of node sent at sent (Unix nanoseconds). The
// messages of the last report are not reused: they may wait to be sent
// again.
func (w *reportWriter) begin(node string, sent int64) {
	w.head = append(w.head[:0], kindReport, reportVersion)
	w.head = binary.AppendUvarint(w.head, uint64(len(node)))
	w.head = append(w.head, node...)
	w.head = binary.AppendVarint(w.head, sent)
	w.sent = sent
	clear(w.msgs)
	w.msgs = w.msgs[:0]
}

// add adds events spent on key.
func (w *reportWriter) add(key string, events int64) {
	n := len(w.msgs)
	if n == 0 || len(w.msgs[n-1].msg)+len(key)+2*binary.MaxVarintLen64 > maxReportBytes {
		w.open()
		n++
	}
	m := binary.AppendUvarint(w.msgs[n-1].msg, uint64(len(key)))
	m = append(m, key...)
	w.msgs[n-1].msg = binary.AppendUvarint(m, uint64(events))
}

// open starts the report's next message, with no key yet: alone, it is an
// empty report, which tells the receivers the number of this node's last
// message.
func (w *reportWriter) open() {
	w.seq++
	m := append(make([]byte, 0, len(w.head)+binary.MaxVarintLen64), w.head...)
	w.msgs = append(w.msgs, outMsg{msg: binary.AppendUvarint(m, w.seq), seq: w.seq, sent: w.sent})
}

// errBadReport is what decodeReport and decodeAsk answer for bytes no node
// encoded.
var errBadReport = errors.New("not a rate limit report or ask")

// decodeReport decodes a message; the keys are copies.
func decodeReport(b []byte) (report, error) {
	var r report
	if len(b) < 2 || b[0] != kindReport || b[1] != reportVersion {
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

// ask is a decoded ask: node wants the reports of each node of after again,
// those numbered past its number; with all, every node not named sends
// again every report it still keeps.
type ask struct {
	node  string
	all   bool
	after []nodeAfter
}

// nodeAfter is a node and one of its reports' numbers.
type nodeAfter struct {
	node  string
	after uint64
}

// appendAsk appends the encoding of a to dst.
func appendAsk(dst []byte, a ask) []byte {
	dst = append(dst, kindAsk, reportVersion)
	dst = binary.AppendUvarint(dst, uint64(len(a.node)))
	dst = append(dst, a.node...)
	all := byte(0)
	if a.all {
		all = 1
	}
	dst = append(dst, all)
	for _, n := range a.after {
		dst = binary.AppendUvarint(dst, uint64(len(n.node)))
		dst = append(dst, n.node...)
		dst = binary.AppendUvarint(dst, n.after)
	}
	return dst
}

// decodeAsk decodes an ask.
func decodeAsk(b []byte) (ask, error) {
	var a ask
	if len(b) < 2 || b[0] != kindAsk || b[1] != reportVersion {
		return a, errBadReport
	}
	node, b, ok := readBytes(b[2:])
	if !ok || len(b) == 0 || b[0] > 1 {
		return a, errBadReport
	}
	a.node, a.all, b = string(node), b[0] == 1, b[1:]
	for len(b) > 0 {
		var name []byte
		if name, b, ok = readBytes(b); !ok {
			return a, errBadReport
		}
		after, n := binary.Uvarint(b)
		if n <= 0 {
			return a, errBadReport
		}
		b = b[n:]
		a.after = append(a.after, nodeAfter{node: string(name), after: after})
	}
	return a, nil
}

// readBytes reads a length-prefixed byte string off b.
func readBytes(b []byte) (s, rest []byte, ok bool) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return nil, nil, false
	}
	return b[n : n+int(l)], b[n+int(l):], true
}
