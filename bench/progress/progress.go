// Package progress shows the harness's progress on stderr with
// github.com/schollz/progressbar: the bar, the time spent and left, and the
// step under way; redrawn in place on a terminal, a line every 5% of the work
// otherwise. Work is counted in units the caller chooses (the harness: each
// step's estimated milliseconds), so that long steps weigh more.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
)

// Bar counts units of work out of a total known in advance. Its methods
// are called from one goroutine.
type Bar struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	tty   bool
	shown int // off a terminal, the percentage of the last line printed; -1 for none
}

// New returns a bar of total units writing to w, redrawn in place when w
// is a terminal.
func New(w io.Writer, total int) *Bar {
	f, _ := w.(*os.File)
	st, err := f.Stat() // a nil *os.File says os.ErrInvalid
	b := &Bar{w: w, tty: err == nil && st.Mode()&os.ModeCharDevice != 0, shown: -1}
	out := w
	if !b.tty {
		out = io.Discard // the lines are printed from the bar's rendering
	}
	b.bar = progressbar.NewOptions(max(total, 1), progressbar.OptionSetWriter(out), progressbar.OptionSetWidth(30),
		progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowDescriptionAtLineEnd(), progressbar.OptionSetRenderBlankState(true))
	return b
}

// Start shows that the step called label is under way: at once on a
// terminal, otherwise on a new line when 5% more work is done.
func (b *Bar) Start(label string) {
	b.bar.Describe(label)
	b.bar.RenderBlank()
	s := b.bar.State()
	if pct := int(100 * s.CurrentNum / s.Max); !b.tty && (b.shown < 0 || pct >= b.shown+5) {
		b.shown = pct
		fmt.Fprintln(b.w, strings.TrimSpace(b.bar.String()))
	}
}

// Done counts n units of work done.
func (b *Bar) Done(n int) {
	b.bar.Set(min(int(b.bar.State().CurrentNum)+n, b.bar.GetMax()))
}

// Note prints a line of text above the bar.
func (b *Bar) Note(format string, a ...any) {
	b.bar.Clear() // off a terminal, the bar writes to io.Discard
	fmt.Fprintf(b.w, format+"\n", a...)
	b.bar.RenderBlank()
}

// Finish fills the bar and ends its line.
func (b *Bar) Finish() {
	b.bar.Describe("done")
	b.bar.Finish()
	if !b.tty {
		fmt.Fprint(b.w, strings.TrimSpace(b.bar.String()))
	}
	fmt.Fprintln(b.w)
}
