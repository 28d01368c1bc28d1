package rpccore

// answerbatch.go gathers the answers of documents a peer reads one after
// another while more input is waiting, so that they are queued together:
// one buffer, one lock of the outbox and one wake of the writer for all of
// them.

import (
	"context"
	"sync"
)

// maxBatchedAnswers bounds the answers gathered before they are queued.
const maxBatchedAnswers = 64

// maxBatchedBytes bounds the bytes of answers gathered before they are
// queued.
const maxBatchedBytes = 32 << 10

// answerBatch is the reader's gathered answers. Only the reading goroutine
// touches it.
type answerBatch struct {
	peer *Peer
	turn *peerTurn // whose subscriptions start once their answers are queued
	max  int

	run  *answerRun // the answers gathered, queued as one message of the outbox
	read int        // messages read since the last flush, told to the observer then
}

// answerRun is answers queued together: one after another in buf, each
// ending where ends says. The writer writes them one by one, then gives
// the run back to runPool.
type answerRun struct {
	buf  []byte
	ends []int
}

var runPool = sync.Pool{New: func() any { return &answerRun{buf: make([]byte, 0, 512)} }}

// putRun gives r back to runPool, unless its buffer grew too large to keep.
func putRun(r *answerRun) {
	if cap(r.buf) > maxPooledBuffer {
		return
	}
	r.buf, r.ends = r.buf[:0], r.ends[:0]
	runPool.Put(r)
}

// answer answers msg into the batch, queueing the batch when it is full,
// and counts it read. For a document calling Blocking methods, which the
// caller runs elsewhere, it runs nothing and reports deferred; a retracted
// guess is not counted.
func (b *answerBatch) answer(ctx context.Context, msg []byte) handled {
	if b.run == nil {
		b.run = runPool.Get().(*answerRun)
	}
	r := b.run
	start := len(r.buf)
	answer, step := b.peer.handle(ctx, msg, r.buf)
	if step == retracted {
		return step
	}
	b.countRead()
	if step == deferred {
		return step
	}
	r.buf = answer
	if len(answer) > start {
		r.ends = append(r.ends, len(answer))
	}
	if len(r.ends) >= b.max || len(answer) >= maxBatchedBytes {
		b.flush()
	}
	return answered
}

// countRead counts a message read, telling the observer of the messages
// read at every flush or, for a reader that never waits, every
// maxBatchedAnswers messages: one update of the count for many messages.
func (b *answerBatch) countRead() {
	if b.read++; b.read >= maxBatchedAnswers {
		b.reportRead()
	}
}

// reportRead tells the observer of the messages counted since it last did.
func (b *answerBatch) reportRead() {
	if b.read > 0 {
		b.peer.events.MessagesIn(b.read)
		b.read = 0
	}
}

// flush queues the gathered answers, as one entry of the outbox, then lets
// the subscriptions their documents opened start sending.
func (b *answerBatch) flush() {
	b.reportRead()
	if r := b.run; r != nil {
		b.run = nil
		if len(r.ends) == 0 || !b.peer.out.pushAnswers(outMsg{head: r.buf, run: r}, len(r.ends)) {
			putRun(r)
		}
	}
	b.turn.activate()
}
