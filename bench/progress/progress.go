// Package progress draws the harness's progress on stderr: a bar redrawn in
// place on a terminal, a line every 5% otherwise (a log or a pipe), with
// the time spent and an estimate of the time left. Work is counted in units
// the caller chooses (the harness uses its estimate of each step's
// milliseconds), so that long steps weigh more than short ones.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar counts units of work out of a total known in advance.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	total int
	done  int
	start time.Time
	label string
	now   func() time.Time
	shown int // the percentage of the last line drawn off a terminal; -1 for none
}

// New returns a bar of total units writing to w, redrawn in place when w
// is a terminal.
func New(w io.Writer, total int) *Bar {
	return &Bar{w: w, tty: isTerminal(w), total: max(total, 1), start: time.Now(), now: time.Now, shown: -1}
}

// Start shows that the step called label is under way: at once on a
// terminal, otherwise on a new line when 5% more work is done.
func (b *Bar) Start(label string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.label = label
	if pct := 100 * b.done / b.total; b.tty || b.shown < 0 || pct >= b.shown+5 {
		b.draw()
	}
}

// Done counts n units of work done.
func (b *Bar) Done(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = min(b.done+n, b.total)
	if b.tty {
		b.draw()
	}
}

// Note prints a line of text above the bar.
func (b *Bar) Note(format string, a ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty {
		fmt.Fprint(b.w, "\r\033[K")
	}
	fmt.Fprintf(b.w, format+"\n", a...)
	if b.tty {
		b.draw()
	}
}

// Finish ends the bar's line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.label = b.total, "done"
	b.draw()
	if b.tty {
		fmt.Fprintln(b.w)
	}
}

// draw writes the bar: redrawn in place on a terminal, a new line otherwise.
func (b *Bar) draw() {
	const width = 30
	filled := width * b.done / b.total
	elapsed := b.now().Sub(b.start)
	left := "?"
	if b.done > 0 {
		left = "~" + clock(time.Duration(float64(elapsed)*float64(b.total-b.done)/float64(b.done)))
	}
	line := fmt.Sprintf("[%s%s] %3d%%  %s elapsed, %s left  %s",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		100*b.done/b.total, clock(elapsed), left, b.label)
	if b.tty {
		fmt.Fprint(b.w, "\r\033[K"+line)
		return
	}
	b.shown = 100 * b.done / b.total
	fmt.Fprintln(b.w, line)
}

// clock formats d as m:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// isTerminal is true when w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
