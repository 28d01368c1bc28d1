package policy

import (
	"slices"
	"strings"
	"testing"
	"time"
)

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
		{"x", 3, true}, {"x", 3, false}, {"x", 5, true}, {"x", 5, false}, {"x", 4, true}, {"x", 4, false},
		{"y", 2, true}, {"x", 6, true},
	} {
		if got := s.first(msg(tt.node, tt.seq), now, window); got != tt.first {
			t.Errorf("message %d of %s: first %v, want %v", tt.seq, tt.node, got, tt.first)
		}
	}
	if x := s.nodes["x"]; x.upTo != 6 || len(x.above) != 0 {
		t.Fatalf("x: counted up to %d and %v past a gap, want up to 6 and none", x.upTo, x.above)
	}
	// A window on, with nothing heard from x or y, both are forgotten.
	later := now + window + 1
	s.first(&report{node: "z", seq: 1, sent: later}, later, window)
	if len(s.nodes) != 1 {
		t.Fatalf("%d nodes kept a window after x and y fell silent, want 1", len(s.nodes))
	}
}

func TestSeenReportsAsksForAGapThenGivesUp(t *testing.T) {
	var s seenReports
	window := int64(time.Minute)
	now := time.Now().UnixNano()
	for _, seq := range []uint64{1, 2, 5, 7} {
		s.first(&report{node: "x", seq: seq, sent: now}, now, window)
	}
	s.first(&report{node: "y", seq: 1, sent: now}, now, window)
	if got := s.gaps(now, now-1); !slices.Equal(got, []nodeAfter{{"x", 2}}) {
		t.Fatalf("gaps %v, want x's after 2", got)
	}
	if got := s.gaps(now+1, now); len(got) != 0 {
		t.Fatalf("gaps asked for again at once: %v", got)
	}
	s.unask([]nodeAfter{{"x", 2}}) // the ask did not go
	if got := s.gaps(now+2, now+1); !slices.Equal(got, []nodeAfter{{"x", 2}}) {
		t.Fatalf("gaps %v after the ask failed, want x's after 2 again", got)
	}
	// 3 comes, and the rest of the gap is asked for afresh; 4 does not
	// come, and once asked for maxAsks times, the gap is given up on.
	s.first(&report{node: "x", seq: 3, sent: now}, now, window)
	at := now + 3
	for range maxAsks {
		if got := s.gaps(at, at); !slices.Equal(got, []nodeAfter{{"x", 3}}) {
			t.Fatalf("gaps %v, want x's after 3", got)
		}
		at++
	}
	if got := s.gaps(at, at); len(got) != 0 {
		t.Fatalf("gaps %v after %d asks, want none", got, maxAsks)
	}
	if x := s.nodes["x"]; x.upTo != 5 || !slices.Equal(x.above, []uint64{7}) {
		t.Fatalf("x counted up to %d and %v past a gap, want 5 and [7]", x.upTo, x.above)
	}
	if got := s.gaps(at+1, at+1); !slices.Equal(got, []nodeAfter{{"x", 5}}) {
		t.Fatalf("gaps %v, want x's after 5", got)
	}
	known := s.known()
	slices.SortFunc(known, func(a, b nodeAfter) int { return strings.Compare(a.node, b.node) })
	if !slices.Equal(known, []nodeAfter{{"x", 5}, {"y", 1}}) {
		t.Fatalf("known %v", known)
	}
}

func TestSeenReportsBoundWhatIsPastAGap(t *testing.T) {
	var s seenReports
	now := time.Now().UnixNano()
	for seq := uint64(2); seq < maxAboveGap+10; seq++ {
		s.first(&report{node: "x", seq: seq, sent: now}, now, int64(time.Minute))
	}
	if x := s.nodes["x"]; len(x.above) > maxAboveGap || x.upTo != maxAboveGap+9 {
		t.Fatalf("x: up to %d with %d past a gap", x.upTo, len(x.above))
	}
}
