package rpccore

// peerworkers.go runs a peer's deferred documents (those calling Blocking
// methods) on goroutines that stay for the next one: a goroutine made for
// each document would grow its stack anew every time, which costs more
// than the call itself for a method that only waits. A worker that ends a
// document takes the next one waiting itself, so that a connection whose
// calls all wait hands documents over without waking the reader for
// each, nor a worker.

import (
	"context"
	"sync"
)

// deferredDoc is a deferred document: a copy of it, and for a single
// request the reader's scan of it, so that the worker does not scan it
// again.
type deferredDoc struct {
	text    []byte
	single  request // the request, its slices into text, when scanned
	scanned bool    // single holds the scan (a batch is scanned again)
}

// newDeferredDoc copies msg, and single (when not nil: the reader's scan of
// msg, a single request) with its slices moved to the copy.
func newDeferredDoc(msg []byte, single *request) *deferredDoc {
	doc := deferredPool.Get().(*deferredDoc)
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
// worker, and counts the workers running one.
type deferredQueue struct {
	mu          sync.Mutex
	waiting     []*deferredDoc // in the order read, from head
	head        int
	busy        int  // workers running a document: at most MaxInFlight
	stopped     bool // the reader has stopped: nothing is added any more
	readerWaits bool // the reader waits on space for room in waiting
	space       chan struct{}
}

// queued returns the number of documents waiting. The caller holds mu.
func (q *deferredQueue) queued() int { return len(q.waiting) - q.head }

// wakeReader wakes the reader if it waits on space, or else lets its next
// wait end at once.
func (q *deferredQueue) wakeReader() {
	select {
	case q.space <- struct{}{}:
	default:
	}
}

// spawn has msg answered by a worker, at once when fewer than MaxInFlight
// run, after those read before it otherwise. It waits while MaxInFlight
// documents wait already, and fails when the peer stops meanwhile. A
// single request was scanned by handle into p.single, which the worker
// answers without scanning msg again.
func (p *Peer) spawn(stop <-chan struct{}, msg []byte) error {
	q := &p.deferred
	limit := p.cfg.MaxInFlight
	var single *request
	if !isBatch(msg) {
		single = &p.single.single
	}
	doc := newDeferredDoc(msg, single)
	q.mu.Lock()
	for q.queued() >= limit && !q.stopped {
		q.readerWaits = true
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-stop:
			doc.release()
			return ErrShutdown
		case <-p.fail:
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
	if q.busy < limit {
		q.busy++
		q.mu.Unlock()
		p.startWorker(doc)
		return nil
	}
	q.waiting = append(q.waiting, doc)
	q.mu.Unlock()
	return nil
}

// next returns the next document waiting for the worker that calls it,
// or nil when none waits (the worker is then no longer busy). Once the
// waiting documents are down to half of MaxInFlight, a reader waiting for
// room is woken: once for many documents, not for each.
func (p *Peer) next() *deferredDoc {
	q := &p.deferred
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued() == 0 {
		q.busy--
		return nil
	}
	doc := q.waiting[q.head]
	q.waiting[q.head] = nil
	if q.head++; q.head == len(q.waiting) {
		q.waiting, q.head = q.waiting[:0], 0
	}
	if q.readerWaits && q.queued() <= p.cfg.MaxInFlight/2 {
		q.readerWaits = false
		q.wakeReader()
	}
	return doc
}

// stopSpawning makes spawn fail from now on, and wakes a reader waiting
// for room.
func (p *Peer) stopSpawning() {
	q := &p.deferred
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.wakeReader()
}

// startWorker hands doc, which the caller owns no longer, to an idle
// worker, or to a new one when none is waiting.
func (p *Peer) startWorker(doc *deferredDoc) {
	select {
	case p.work <- doc:
	default:
		p.workers.Add(1)
		go p.worker(doc)
	}
}

// worker answers doc, then the documents waiting, then those it is handed
// while it is idle, until more workers are idle than the peer may run
// documents at once, or the peer ends. Its documents' calls share one
// context, as those the reader answers do.
func (p *Peer) worker(doc *deferredDoc) {
	defer p.workers.Done()
	turn := &peerTurn{peer: p}
	ctx := context.WithValue(p.ctx, peerKey{}, turn)
	for {
		p.runDeferred(ctx, turn, doc)
		doc.release()
		if doc = p.next(); doc != nil {
			continue
		}
		if p.idle.Add(1) > int32(p.cfg.MaxInFlight) {
			p.idle.Add(-1)
			return
		}
		var ok bool
		if doc, ok = <-p.work; !ok {
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
	if doc.scanned {
		p.sendAnswer(out, p.srv.answerRequest(ctx, &doc.single, (*out)[:0]), turn)
		return
	}
	p.sendAnswer(out, p.srv.Process(ctx, doc.text, (*out)[:0]), turn)
}

// stopWorkers ends the idle workers once no document runs, and waits for
// them. Nothing is handed to them any more: the reader has returned.
func (p *Peer) stopWorkers() {
	close(p.work)
	p.workers.Wait()
}
