package progress

import (
	"strings"
	"testing"
	"time"
)

func TestBarPrintsALineEveryFivePercentOffATerminal(t *testing.T) {
	var out strings.Builder
	b := New(&out, 100)
	for i := range 100 {
		b.Start("step " + string(rune('a'+i%26)))
		b.Done(1)
	}
	b.Finish()
	if n := strings.Count(out.String(), "\n"); n != 21 {
		t.Fatalf("%d lines:\n%s", n, out.String())
	}
}

func TestBarShowsTimeLeftAndNotes(t *testing.T) {
	var out strings.Builder
	b := New(&out, 4)
	t0 := b.start
	b.now = func() time.Time { return t0.Add(10 * time.Second) }
	b.Start("one")
	b.Done(1)
	b.Start("two")
	b.Note("a note")
	b.Finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || strings.Contains(out.String(), "\r") {
		t.Fatalf("%q", out.String())
	}
	if !strings.Contains(lines[0], "  0%") || !strings.Contains(lines[0], "? left  one") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.Contains(lines[1], "[#######.......................]  25%  0:10 elapsed, ~0:30 left  two") {
		t.Errorf("second line %q", lines[1])
	}
	if lines[2] != "a note" || !strings.Contains(lines[3], "100%") {
		t.Errorf("lines %q", lines)
	}
}
