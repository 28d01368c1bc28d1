package policy

import (
	"testing"
	"time"
)

func TestReportEncoding(t *testing.T) {
	var w reportWriter
	w.begin("node-1", 12345)
	long := string(make([]byte, 150<<10))
	w.add("a", 3)
	w.add(long, 1)
	w.add(long+"x", 2)
	w.add("", 7)
	if len(w.msgs) < 2 {
		t.Fatalf("%d messages for 300 KiB of keys, want them cut", len(w.msgs))
	}
	var keys []reportedKey
	for i, m := range w.msgs {
		if len(m) > maxReportBytes {
			t.Fatalf("a message of %d bytes", len(m))
		}
		r, err := decodeReport(m)
		if err != nil || r.node != "node-1" || r.sent != 12345 || r.seq != uint64(i+1) {
			t.Fatalf("decoded %q %d #%d: %v, want message %d", r.node, r.sent, r.seq, err, i+1)
		}
		keys = append(keys, r.keys...)
	}
	want := []reportedKey{{"a", 3}, {long, 1}, {long + "x", 2}, {"", 7}}
	if len(keys) != len(want) {
		t.Fatalf("%d keys, want %d", len(keys), len(want))
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Errorf("key %d: %q×%d, want %q×%d", i, keys[i].key[:min(len(keys[i].key), 8)], keys[i].events,
				want[i].key[:min(len(want[i].key), 8)], want[i].events)
		}
	}
	n := len(w.msgs)
	w.begin("node-1", 12346)
	w.add("a", 1)
	if r, err := decodeReport(w.msgs[0]); err != nil || r.seq != uint64(n+1) {
		t.Fatalf("the next report's message is number %d (%v), want %d", r.seq, err, n+1)
	}
	for _, bad := range [][]byte{nil, []byte("R"), []byte("R\x02"), []byte("R\x02\x05ab"), []byte("R\x01\x01a\x02\x01"),
		[]byte("R\x02\x01a\x02\x00"), append(w.msgs[0][:len(w.msgs[0])-1:len(w.msgs[0])-1], 0)} {
		if _, err := decodeReport(bad); err == nil {
			t.Errorf("decoded %q", bad)
		}
	}
}

func TestSeenReportsCountsEachMessageOnce(t *testing.T) {
	var s seenReports
	window := int64(time.Minute)
	now := time.Now().UnixNano()
	msg := func(node string, seq uint64) *report { return &report{node: node, seq: seq, sent: now} }
	for _, tt := range []struct {
		node  string
		seq   uint64
		first bool
	}{
		{"x", 1, true}, {"x", 2, true}, {"x", 2, false}, {"x", 1, false}, {"y", 1, true},
		{"x", 3, true}, {"x", 3, false}, {"x", 5, true}, {"x", 4, false}, {"y", 2, true},
	} {
		if got := s.first(msg(tt.node, tt.seq), now, window); got != tt.first {
			t.Errorf("message %d of %s: first %v, want %v", tt.seq, tt.node, got, tt.first)
		}
	}
	// A window on, with nothing heard from x or y, both are forgotten.
	later := now + window + 1
	s.first(&report{node: "z", seq: 1, sent: later}, later, window)
	if len(s.last) != 1 {
		t.Fatalf("%d nodes kept a window after x and y fell silent, want 1", len(s.last))
	}
}
