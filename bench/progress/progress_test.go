package progress

import (
	"strings"
	"testing"
)

func TestBarPrintsALineEveryFivePercentOffATerminal(t *testing.T) {
	var out strings.Builder
	b := New(&out, 100)
	for i := range 100 {
		b.Start("step " + string(rune('a'+i%26)))
		if i == 50 {
			b.Note("a note")
		}
		b.Done(1)
	}
	b.Finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 22 || strings.Contains(out.String(), "\r") {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[1], "5%") || !strings.HasSuffix(lines[1], "step f") || lines[11] != "a note" ||
		!strings.Contains(lines[21], "100%") || !strings.HasSuffix(lines[21], "done") {
		t.Errorf("%q", lines)
	}
}
