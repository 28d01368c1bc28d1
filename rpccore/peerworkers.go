package rpccore

// peerworkers.go runs a peer's deferred documents (those calling Blocking
// methods) on goroutines that stay for the next one: a goroutine made for
// each document would grow its stack anew every time, which costs more
// than the call itself for a method that only waits.

// startDeferred hands doc, a pooled buffer which the caller owns no
// longer, to an idle worker, or to a new one when none is waiting.
func (p *Peer) startDeferred(doc *[]byte) {
	select {
	case p.work <- doc:
	default:
		p.workers.Add(1)
		go p.worker(doc)
	}
}

// worker answers doc, then the documents it is handed while it waits,
// until more workers are idle than the peer may run documents at once, or
// the peer ends.
func (p *Peer) worker(doc *[]byte) {
	defer p.workers.Done()
	for {
		p.runDeferred(*doc)
		putBuffer(doc)
		if p.idle.Add(1) > int32(cap(p.slots)) {
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

// stopWorkers ends the idle workers once no document runs, and waits for
// them. Nothing is handed to them any more: the reader has returned.
func (p *Peer) stopWorkers() {
	close(p.work)
	p.workers.Wait()
}
