package rpccore

// forwardbatch.go runs the forwarded calls of a batch: grouped by
// Forwarder, each group in one Forward, concurrently with the other groups
// and the batch's Blocking calls, every answer in its request's place.

import (
	"context"
	"sync"
)

// forwardGroup is the calls of one batch bound for one forwarder.
type forwardGroup struct {
	s       *Server
	ctx     context.Context
	fw      *forwarder
	calls   []ForwardedCall
	ids     [][]byte         // each call's id, nil for a notification
	answers []*pendingAnswer // each call's place in the batch
	once    sync.Once
}

// startForwarded starts the forwarded calls of a batch with its Blocking
// calls, as startBlocking does, when the batch has a forwarded call; ok is
// false when it has none.
func (s *Server) startForwarded(parent context.Context, items []request, fws []*forwarder) (pending []*pendingAnswer, cancel context.CancelFunc, ok bool) {
	var groups []*forwardGroup
	for i := range items {
		fw, name := s.forwarded(fws, &items[i])
		if fw == nil {
			continue
		}
		if pending == nil {
			pending = make([]*pendingAnswer, len(items))
		}
		g := groupOf(groups, fw)
		if g == nil {
			g = &forwardGroup{s: s, fw: fw}
			groups = append(groups, g)
		}
		r := &items[i]
		p := &pendingAnswer{done: make(chan struct{})}
		pending[i] = p
		g.calls = append(g.calls, ForwardedCall{Method: name, Params: r.args.raw, Notification: r.id == nil})
		g.ids = append(g.ids, r.id)
		g.answers = append(g.answers, p)
	}
	if groups == nil {
		return nil, nil, false
	}
	ctx, stop := context.WithCancel(parent)
	for _, g := range groups {
		g.ctx = ctx
	}
	if s.cfg.batchConcurrency < 2 {
		// In order: each group runs when the batch's answer reaches its
		// first call.
		for _, g := range groups {
			for _, p := range g.answers {
				p.group = g
			}
		}
		return pending, stop, true
	}
	slots := make(chan struct{}, s.cfg.batchConcurrency)
	s.spawnBlocking(ctx, items, pending, slots)
	var running sync.WaitGroup
	for _, g := range groups {
		running.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			g.run()
		})
	}
	// Cancelling waits for the groups, which point into the request.
	return pending, func() { stop(); running.Wait() }, true
}

// groupOf returns the group of fw, or nil.
func groupOf(groups []*forwardGroup, fw *forwarder) *forwardGroup {
	for _, g := range groups {
		if g.fw == fw {
			return g
		}
	}
	return nil
}

// run forwards the group's calls and sets their answers, once; the calls
// the gate refuses are answered without being forwarded. Nothing is
// forwarded once the batch is cancelled.
func (g *forwardGroup) run() {
	g.once.Do(func() {
		defer func() {
			for _, p := range g.answers {
				close(p.done)
			}
		}()
		if g.ctx.Err() != nil {
			return
		}
		s := g.s
		spans := g.startTraces()
		send, refused := g.gated()
		if len(send) > 0 {
			fctx := g.ctx
			if len(g.calls) == 1 && spans != nil && spans[0] != nil {
				fctx = spans[0] // the one call's own span is the forwarded request's parent
			}
			s.callForwarder(fctx, g.fw, send)
			if refused != nil {
				j := 0
				for i := range g.calls {
					if refused[i] == nil {
						g.calls[i] = send[j]
						j++
					}
				}
			}
		}
		var buf []byte
		ends := make([]int, len(g.calls))
		for i := range g.calls {
			switch {
			case refused != nil && refused[i] != nil:
				buf, g.answers[i].code = s.refuseCall(&request{id: g.ids[i]}, refused[i], buf)
			case g.ids[i] != nil:
				buf, g.answers[i].code = appendForwarded(buf, &g.calls[i], g.ids[i])
			}
			ends[i] = len(buf)
		}
		start := 0
		for i, end := range ends {
			g.answers[i].answer = buf[start:end:end]
			start = end
		}
		g.endTraces(spans, refused)
	})
}

// startTraces tells the server's tracer of the start of each of the
// group's calls. It returns the context of each call whose end the tracer
// is to hear of (nil for the others), or nil when there is none.
func (g *forwardGroup) startTraces() []context.Context {
	if g.s.cfg.tracer == nil {
		return nil
	}
	var spans []context.Context
	for i := range g.calls {
		if ctx, ok := g.s.cfg.tracer.StartCall(g.ctx, g.calls[i].Method, g.ids[i]); ok {
			if spans == nil {
				spans = make([]context.Context, len(g.calls))
			}
			spans[i] = ctx
		}
	}
	return spans
}

// endTraces tells the tracer of the end of the calls startTraces started,
// once their answers are set.
func (g *forwardGroup) endTraces(spans []context.Context, refused []error) {
	for i, ctx := range spans {
		if ctx == nil {
			continue
		}
		var refusal error
		if refused != nil {
			refusal = refused[i]
		}
		g.s.endForwardTrace(ctx, g.answers[i].code, refusal, g.calls[i].Error)
	}
}

// gated returns the calls to forward and, when the server has a call gate
// that refused some, the error of each refused call (nil for the others).
func (g *forwardGroup) gated() (send []ForwardedCall, refused []error) {
	gate := g.s.cfg.gate
	if gate == nil {
		return g.calls, nil
	}
	for i := range g.calls {
		if err := gate(g.ctx, g.calls[i].Method); err != nil {
			if refused == nil {
				refused = make([]error, len(g.calls))
			}
			refused[i] = err
		}
	}
	if refused == nil {
		return g.calls, nil
	}
	for i := range g.calls {
		if refused[i] == nil {
			send = append(send, g.calls[i])
		}
	}
	return send, refused
}
