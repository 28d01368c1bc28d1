package rpccore

// batch.go answers batches: in request order, within the response limit,
// with Blocking methods run concurrently.

import "context"

// answerBatch answers a batch that read accepted.
func (s *Server) answerBatch(ctx context.Context, d *document, dst []byte, sum *Summary, timing *callSampler) []byte {
	pending, cancel := s.startBlocking(ctx, d.items)
	defer cancel()

	start := len(dst)
	dst = append(dst, '[')
	overflow := false
	for i := range d.items {
		r := &d.items[i]
		mark := len(dst)
		if mark > start+1 {
			dst = append(dst, ',')
		}
		bodyStart := len(dst)
		var code int
		switch {
		case overflow:
			if !r.isNotification() {
				dst = appendErrorBodyAnswer(dst, errBodyTooLarge, r.idOrNull())
				code = CodeResponseTooLarge
			}
		case pending != nil && pending[i] != nil:
			p := pending[i]
			if p.group != nil {
				p.group.run() // forwarded calls of a batch run in order
			}
			<-p.done
			dst = append(dst, p.answer...)
			code = p.code
		default:
			dst, code = s.answer(ctx, r, dst, timing)
		}
		if !overflow && len(dst)-start+1 > s.cfg.maxResponseBytes {
			overflow = true
			cancel() // calls still running have lost their place
			dst = dst[:bodyStart]
			if !r.isNotification() {
				dst = appendErrorBodyAnswer(dst, errBodyTooLarge, r.idOrNull())
				code = CodeResponseTooLarge
			}
		}
		if len(dst) == bodyStart {
			dst = dst[:mark]
		}
		if code != 0 {
			sum.noteError(code)
		}
	}
	if len(dst) == start+1 {
		return dst[:start]
	}
	return append(dst, ']')
}

// noCancel is the cancel function of batches without concurrent calls.
var noCancel context.CancelFunc = func() {}

// pendingAnswer is a Blocking call of a batch running on its own goroutine.
type pendingAnswer struct {
	done   chan struct{}
	answer []byte
	code   int
	group  *forwardGroup // forwarded calls to run on the first wait, in order
}

// startBlocking starts the batch's calls to Blocking methods, at most the
// configured number at a time, when there are two or more of them, and
// returns them with the function that cancels them. It returns no calls
// when the batch runs in order. A batch with forwarded calls starts them
// too (startForwarded).
func (s *Server) startBlocking(ctx context.Context, items []request) ([]*pendingAnswer, context.CancelFunc) {
	if fws := s.forwarders.Load(); fws != nil {
		if pending, cancel, ok := s.startForwarded(ctx, items, *fws); ok {
			return pending, cancel
		}
	}
	if s.cfg.batchConcurrency < 2 {
		return nil, noCancel
	}
	if s.countBlocking(items) < 2 {
		return nil, noCancel
	}
	return s.runBlocking(ctx, items)
}

// countBlocking counts the items that call Blocking methods.
func (s *Server) countBlocking(items []request) int {
	if !s.methods.Load().blocking {
		return 0
	}
	count := 0
	for i := range items {
		if e := s.lookup(&items[i]); e != nil && e.blocking && !items[i].invalid {
			count++
		}
	}
	return count
}

// runBlocking starts the goroutines of startBlocking.
func (s *Server) runBlocking(parent context.Context, items []request) ([]*pendingAnswer, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	pending := make([]*pendingAnswer, len(items))
	s.spawnBlocking(ctx, items, pending, make(chan struct{}, s.cfg.batchConcurrency))
	return pending, cancel
}

// spawnBlocking starts a goroutine for each of the batch's calls to
// Blocking methods, which waits for one of slots, and records it in
// pending.
func (s *Server) spawnBlocking(ctx context.Context, items []request, pending []*pendingAnswer, slots chan struct{}) {
	for i := range items {
		r := &items[i]
		if e := s.lookup(r); e == nil || !e.blocking || r.invalid {
			continue
		}
		p := &pendingAnswer{done: make(chan struct{})}
		pending[i] = p
		go func() {
			defer close(p.done)
			slots <- struct{}{}
			defer func() { <-slots }()
			if ctx.Err() != nil {
				return
			}
			p.answer, p.code = s.answer(ctx, r, nil, nil)
		}()
	}
}

// callsBlocking reports whether a document that read accepted calls a
// Blocking method, so that a transport reading documents one after another
// can run it elsewhere. A forwarded call counts as one.
func (s *Server) callsBlocking(d *document) bool {
	if fws := s.forwarders.Load(); fws != nil && s.forwardsAny(*fws, d) {
		return true
	}
	if d.batch {
		return s.countBlocking(d.items) > 0
	}
	if !s.methods.Load().blocking || d.single.invalid {
		return false
	}
	e := s.lookup(&d.single)
	return e != nil && e.blocking
}
