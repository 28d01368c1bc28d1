package pipeline

import (
	"sync"
	"sync/atomic"
)

// Group is the goroutines of one measurement: until it stops, the first
// error of any of them is handed on on Failed; once it stops, their errors
// are those of its closing, and are dropped.
type Group struct {
	Failed  chan error
	stopped atomic.Bool
	quit    chan struct{}
	wg      sync.WaitGroup
}

// NewGroup returns a group with no goroutines.
func NewGroup() *Group { return &Group{Failed: make(chan error, 1), quit: make(chan struct{})} }

// Go runs f in a goroutine of g; its error, if any, fails g.
func (g *Group) Go(f func() error) {
	g.wg.Go(func() {
		if err := f(); err != nil {
			g.Fail(err)
		}
	})
}

// Fail hands err on, unless g is stopping or holds an error already.
func (g *Group) Fail(err error) {
	if !g.Stopping() {
		select {
		case g.Failed <- err:
		default:
		}
	}
}

// Stopping reports whether Stop was called.
func (g *Group) Stopping() bool { return g.stopped.Load() }

// Quit is closed when g stops.
func (g *Group) Quit() <-chan struct{} { return g.quit }

// Stop marks g stopping, calls end, which must end its goroutines (by
// closing their connections), and waits for them.
func (g *Group) Stop(end func()) {
	g.stopped.Store(true)
	close(g.quit)
	end()
	g.wg.Wait()
}
