package rpccore

// peerwrite.go writes a peer's queued messages: on its writer goroutine,
// flushing once per batch taken, or, for a notification queued while the
// writer is idle on a connection that can write without waiting, on the
// goroutine that queues it.

// writeLoop writes whatever is queued, flushing once per batch taken, and
// returns when the queue is empty. It first flushes what a direct write
// left held in the connection.
func (p *Peer) writeLoop() {
	if n := p.out.takeHeld(); n > 0 && p.failure() == nil {
		if err := p.conn.Flush(p.writeCtx); err != nil {
			p.setFailure(err)
		} else {
			p.events.MessagesOut(n)
		}
	}
	for {
		msgs := p.out.take()
		if msgs == nil {
			return
		}
		if p.writeMessages(msgs) {
			if err := p.conn.Flush(p.writeCtx); err != nil {
				p.setFailure(err)
			} else {
				p.events.MessagesOut(len(msgs))
			}
		}
	}
}

// writeDirect writes msgs, which the outbox did not queue, on the calling
// goroutine, as far as the connection takes them without waiting
// (TryFlusher). It reports whether the connection holds some of them
// still, for the writer to flush. The caller has the outbox's writing
// turn.
func (p *Peer) writeDirect(msgs []outMsg) (held bool) {
	if p.writeCtx.Err() != nil {
		// The writer's Flush sees the same end, and says so.
		return p.writeMessages(msgs)
	}
	if !p.writeMessages(msgs) {
		return false
	}
	all, err := p.tryFlusher.TryFlush()
	switch {
	case err != nil:
		p.setFailure(err)
		return false
	case all:
		p.events.MessagesOut(len(msgs))
		return false
	}
	return true
}

// writeMessages hands msgs to the connection and gives their pooled
// buffers back. It reports false, having handed over none of them, when
// the peer has failed, and false when handing one over fails.
func (p *Peer) writeMessages(msgs []outMsg) bool {
	ok := p.failure() == nil
	for i := range msgs {
		m := &msgs[i]
		if ok {
			data := m.head
			if m.body != nil {
				p.scratch = append(append(p.scratch[:0], m.head...), m.body...)
				if m.tail != nil {
					p.scratch = append(p.scratch, m.tail...)
				} else {
					p.scratch = append(p.scratch, '}', '}')
				}
				data = p.scratch
			}
			if err := p.conn.WriteMessage(p.writeCtx, data); err != nil {
				p.setFailure(err)
				ok = false
			}
		}
		if m.pooled != nil {
			putBuffer(m.pooled)
		}
	}
	return ok
}
