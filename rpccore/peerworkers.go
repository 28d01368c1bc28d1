package rpccore

// peerworkers.go runs a peer's deferred documents (those calling Blocking
// methods) on goroutines that stay for the next one: a goroutine made for
// each document would grow its stack anew every time, which costs more
// than the call itself for a method that only waits. The reader queues
// each document; a worker takes the next one waiting itself, and one is
// woken only when none is on its way to the queue, so that a connection
// whose calls all wait hands documents over without waking the reader for
// each, nor a worker.

import (
	"context"
	"sync"
	"sync/atomic"
)

// deferredDoc is a deferred document: a copy of it, and for a single
// request the reader's scan of it, so that the worker does not scan it
// again.
type deferredDoc struct {
	text    []byte
	single  request // the request, its slices into text, when scanned
	scanned bool    // single holds the scan (a batch is scanned again)

	// answered is set by whoever answers the document: the worker that
	// ran it, or a shutdown that could not wait for it (peerdrain.go).
	answered atomic.Bool
	// prev and next link the documents running, from the queue's
	// runningDocs.
	prev, next *deferredDoc
}

// newDeferredDoc copies msg, and single (when not nil: the reader's scan of
// msg, a single request) with its slices moved to the copy.
func newDeferredDoc(msg []byte, single *request) *deferredDoc {
	doc := deferredPool.Get().(*deferredDoc)
	doc.answered.Store(false)
	doc.text = append(doc.text[:0], msg...)
	if doc.scanned = single != nil; doc.scanned {
		doc.single = *single
		r := &doc.single
		r.method = moved(r.method, msg, doc.text)
		r.id = moved(r.id, msg, doc.text)
		r.args.raw = moved(r.args.raw, msg, doc.text)
		r.result = moved(r.result, msg, doc.text)
		r.errVal = moved(r.errVal, msg, doc.text)
	}
	return doc
}

// moved returns the slice of to that b is of from, to being a copy of from
// (nil stays nil). b ends in from's array, as every slice the scan takes
// does, so its offset is what its capacity lacks of from's.
func moved(b, from, to []byte) []byte {
	if b == nil {
		return nil
	}
	off := cap(from) - cap(b)
	return to[off : off+len(b) : off+len(b)]
}

// release gives doc back for another document.
func (doc *deferredDoc) release() {
	doc.single = request{}
	if cap(doc.text) > maxKeptMessage {
		doc.text = nil
	}
	deferredPool.Put(doc)
}

var deferredPool = sync.Pool{New: func() any { return new(deferredDoc) }}

// deferredQueue holds the deferred documents read and not yet taken by a
// worker, and counts the workers awake and the documents they run.
type deferredQueue struct {
	mu          sync.Mutex
	waiting     []*deferredDoc // in the order read, from head
	head        int
	started     int           // documents taken by a worker and not finished: at most MaxInFlight
	runningDocs *deferredDoc  // those documents, linked by prev and next
	awake       int           // workers running a document or woken to take one: at most MaxInFlight
	waking      bool          // a worker was woken and has not taken a document yet
	stopped     bool          // the reader has stopped: nothing is added any more
	readerWaits bool          // the reader waits on space for room
	space       chan struct{} // made with the first document deferred, as the peer's work
}

// queued returns the number of documents waiting. The caller holds mu.
func (q *deferredQueue) queued() int { return len(q.waiting) - q.head }

// held returns the documents started or waiting. The caller holds mu.
func (q *deferredQueue) held() int { return q.started + q.queued() }

// wakeWorker reports whether a worker is to be woken for the documents
// waiting, counting it awake: when none is on its way to them already and
// fewer than limit are awake. The caller holds mu. A woken worker that
// takes a document wakes the next one while documents still wait, so that
// documents whose calls wait each get a worker, while documents answered
// at once are taken by the workers awake, without a wake for each.
func (q *deferredQueue) wakeWorker(limit int) bool {
	if q.waking || q.awake >= limit || q.queued() == 0 {
		return false
	}
	q.waking = true
	q.awake++
	return true
}

// wakeReader wakes the reader if it waits on space, or else lets its next
// wait end at once. The caller holds mu.
func (q *deferredQueue) wakeReader() {
	select {
	case q.space <- struct{}{}:
	default:
	}
}

// spawn queues msg to be answered by a worker, after the documents read
// before it. At most MaxInFlight documents run at once and as many more
// wait: spawn waits while that many are held, and fails when the peer
// stops meanwhile. A single request was scanned by handle into p.single,
// which the worker answers without scanning msg again.
func (p *Peer) spawn(stop <-chan struct{}, msg []byte) error {
	q := &p.deferred
	limit := p.cfg.MaxInFlight
	var single *request
	if !isBatch(msg) {
		single = &p.single.single
	}
	doc := newDeferredDoc(msg, single)
	q.mu.Lock()
	if q.space == nil && !q.stopped {
		// The first document deferred: only a peer whose client calls
		// Blocking methods pays for the channels.
		q.space, p.work = make(chan struct{}, 1), make(chan struct{})
	}
	for q.held() >= 2*limit && !q.stopped {
		q.readerWaits = true
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-stop:
			doc.release()
			return ErrShutdown
		case <-p.failedChan():
			doc.release()
			return p.failure()
		}
		q.mu.Lock()
	}
	if q.stopped {
		q.mu.Unlock()
		doc.release()
		return ErrShutdown
	}
	p.running.Add(1)
	q.waiting = append(q.waiting, doc)
	wake := q.wakeWorker(limit)
	q.mu.Unlock()
	if wake {
		p.startWorker()
	}
	return nil
}

// next returns the next document waiting for the worker that calls it,
// or nil when none waits (the worker is then no longer awake). woken says
// the worker was just woken for it; finished, when not nil, is the
// document it ended, which the caller releases once next returns.
// Once a quarter of the documents the peer may hold can be read again, a
// reader waiting for room is woken: once for many documents, not for each.
func (p *Peer) next(woken bool, finished *deferredDoc) *deferredDoc {
	q := &p.deferred
	limit := p.cfg.MaxInFlight
	q.mu.Lock()
	if woken {
		q.waking = false
	}
	if finished != nil {
		q.unlinkRunning(finished)
		q.started--
		if q.readerWaits && q.held() <= 2*limit-max(1, limit/2) {
			q.readerWaits = false
			q.wakeReader()
		}
	}
	if q.queued() == 0 {
		q.awake--
		q.mu.Unlock()
		return nil
	}
	doc := q.waiting[q.head]
	q.waiting[q.head] = nil
	if q.head++; q.head == len(q.waiting) {
		q.waiting, q.head = q.waiting[:0], 0
	}
	q.started++
	q.linkRunning(doc)
	wake := q.wakeWorker(limit)
	q.mu.Unlock()
	if wake {
		p.startWorker()
	}
	return doc
}

// stopSpawning makes spawn fail from now on, and wakes a reader waiting
// for room.
func (p *Peer) stopSpawning() {
	q := &p.deferred
	q.mu.Lock()
	q.stopped = true
	q.wakeReader()
	q.mu.Unlock()
}

// startWorker wakes an idle worker to take the documents waiting, or
// starts a new one when none is idle.
func (p *Peer) startWorker() {
	select {
	case p.work <- struct{}{}:
	default:
		p.workers.Add(1)
		go p.worker()
	}
}

// worker answers the documents waiting, then waits to be woken for more,
// until more workers are idle than the peer may run documents at once, or
// the peer ends. Its documents' calls share one context, as those the
// reader answers do.
func (p *Peer) worker() {
	defer p.workers.Done()
	turn := &peerTurn{peer: p}
	ctx := context.WithValue(p.ctx, peerKey{}, turn)
	for {
		for doc := p.next(true, nil); doc != nil; {
			p.runDeferred(ctx, turn, doc)
			finished := doc
			doc = p.next(false, finished)
			finished.release()
		}
		if p.idle.Add(1) > int32(p.cfg.MaxInFlight) {
			p.idle.Add(-1)
			return
		}
		if _, ok := <-p.work; !ok {
			return // the peer has ended
		}
		p.idle.Add(-1)
	}
}

// runDeferred answers a document that calls Blocking methods, on a worker
// goroutine.
func (p *Peer) runDeferred(ctx context.Context, turn *peerTurn, doc *deferredDoc) {
	defer p.running.Done()
	out := getBuffer()
	var answer []byte
	if doc.scanned {
		answer = p.srv.answerRequest(ctx, &doc.single, (*out)[:0], nil)
	} else {
		answer = p.srv.Process(ctx, doc.text, (*out)[:0])
	}
	if !doc.answered.CompareAndSwap(false, true) {
		// A shutdown answered it when the grace ran out: this answer is
		// too late, and the subscriptions it opened never start.
		putBuffer(out)
		turn.forget()
		return
	}
	p.sendAnswer(out, answer, turn)
}

// linkRunning adds doc to the documents running. The caller holds mu.
func (q *deferredQueue) linkRunning(doc *deferredDoc) {
	doc.prev, doc.next = nil, q.runningDocs
	if q.runningDocs != nil {
		q.runningDocs.prev = doc
	}
	q.runningDocs = doc
}

// unlinkRunning takes doc out of the documents running. The caller holds
// mu.
func (q *deferredQueue) unlinkRunning(doc *deferredDoc) {
	if doc.prev != nil {
		doc.prev.next = doc.next
	} else {
		q.runningDocs = doc.next
	}
	if doc.next != nil {
		doc.next.prev = doc.prev
	}
	doc.prev, doc.next = nil, nil
}

// stopWorkers ends the idle workers once no document runs, and waits for
// them. Nothing is handed to them any more: the reader has returned.
func (p *Peer) stopWorkers() {
	q := &p.deferred
	q.mu.Lock()
	work := p.work
	q.mu.Unlock()
	if work != nil {
		close(work)
	}
	p.workers.Wait()
}
