package policy

import (
	"slices"
	"testing"
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
		if len(m.msg) > maxReportBytes {
			t.Fatalf("a message of %d bytes", len(m.msg))
		}
		r, err := decodeReport(m.msg)
		if err != nil || r.node != "node-1" || r.sent != 12345 || r.seq != uint64(i+1) || m.seq != r.seq || m.sent != r.sent {
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
	if r, err := decodeReport(w.msgs[0].msg); err != nil || r.seq != uint64(n+1) {
		t.Fatalf("the next report's message is number %d (%v), want %d", r.seq, err, n+1)
	}
	for _, bad := range [][]byte{nil, []byte("R"), []byte("R\x02"), []byte("R\x02\x05ab"), []byte("R\x01\x01a\x02\x01"),
		[]byte("R\x02\x01a\x02\x00"), append(w.msgs[0].msg[:len(w.msgs[0].msg)-1:len(w.msgs[0].msg)-1], 0)} {
		if _, err := decodeReport(bad); err == nil {
			t.Errorf("decoded %q", bad)
		}
	}
}

func TestAskEncoding(t *testing.T) {
	for _, a := range []ask{
		{node: "me", all: true},
		{node: "me", after: []nodeAfter{{"x", 7}, {"", 0}, {"y", 1 << 40}}},
	} {
		got, err := decodeAsk(appendAsk(nil, a))
		if err != nil || got.node != a.node || got.all != a.all || !slices.Equal(got.after, a.after) {
			t.Errorf("ask %+v decoded as %+v, %v", a, got, err)
		}
	}
	for _, bad := range []string{"", "A", "A\x02", "A\x02\x02me", "A\x02\x02me\x02", "A\x02\x02me\x00\x01x", "A\x02\x02me\x00\x05x\x01",
		"R\x02\x02me\x00"} {
		if _, err := decodeAsk([]byte(bad)); err == nil {
			t.Errorf("decoded %q as an ask", bad)
		}
	}
}
