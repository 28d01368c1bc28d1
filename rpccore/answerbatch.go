package rpccore

// answerbatch.go gathers the answers of documents a peer reads one after
// another while more input is waiting, so that they are queued together:
// one buffer, one lock of the outbox and one wake of the writer for all of
// them.

import "context"

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

	buf  *[]byte // the answers, one after another
	ends []int   // where each answer ends in *buf
	msgs []outMsg
	read int // messages read since the last flush, told to the observer then
}

// answer answers msg into the batch, queueing the batch when it is full,
// and counts it read. For a document calling Blocking methods, which the
// caller runs elsewhere, it runs nothing and reports deferred; a retracted
// guess is not counted.
func (b *answerBatch) answer(ctx context.Context, msg []byte) handled {
	if b.buf == nil {
		b.buf = getBuffer()
	}
	start := len(*b.buf)
	answer, step := b.peer.handle(ctx, msg, *b.buf)
	if step == retracted {
		return step
	}
	b.countRead()
	if step == deferred {
		return step
	}
	*b.buf = answer
	if len(answer) > start {
		b.ends = append(b.ends, len(answer))
	}
	if len(b.ends) >= b.max || len(answer) >= maxBatchedBytes {
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

// flush queues the gathered answers, then lets the subscriptions their
// documents opened start sending.
func (b *answerBatch) flush() {
	b.reportRead()
	if len(b.ends) > 0 {
		start := 0
		for _, end := range b.ends {
			b.msgs = append(b.msgs, outMsg{head: (*b.buf)[start:end]})
			start = end
		}
		b.msgs[len(b.msgs)-1].pooled = b.buf // given back once all are written
		if !b.peer.out.pushAnswers(b.msgs) {
			putBuffer(b.buf)
		}
		b.buf = nil
		clear(b.msgs)
		b.msgs, b.ends = b.msgs[:0], b.ends[:0]
	} else if b.buf != nil {
		putBuffer(b.buf)
		b.buf = nil
	}
	b.turn.activate()
}
