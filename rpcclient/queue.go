package rpcclient

// queue.go holds the messages waiting to be written. It outlives
// connections: what was not taken by one connection's writer goes out on
// the next. Messages are numbered in the order they are pushed, so that a
// lost connection can tell the calls it took from those still waiting.

import "sync"

// queuedMessage is one message in a queue's buffer.
type queuedMessage struct {
	start, end int
	dead       bool // its call gave up before it was taken: not written
}

// sendQueue is the client's queue of messages to write.
type sendQueue struct {
	mu    sync.Mutex
	buf   []byte
	msgs  []queuedMessage
	seq   uint64 // number of the last message pushed
	taken uint64 // number of the last message a writer took
	wake  chan struct{}
	// refusing is set, under WithFailFast, from a lost connection's sweep
	// until the next connection is made: calls fail instead of queueing.
	refusing bool
}

func newSendQueue() *sendQueue { return &sendQueue{wake: make(chan struct{}, 1)} }

// push queues a copy of msg and returns its number.
func (q *sendQueue) push(msg []byte) uint64 {
	q.mu.Lock()
	seq := q.pushLocked(msg)
	q.mu.Unlock()
	return seq
}

// pushLocked is push with q.mu held.
func (q *sendQueue) pushLocked(msg []byte) uint64 {
	start := len(q.buf)
	q.buf = append(q.buf, msg...)
	q.msgs = append(q.msgs, queuedMessage{start: start, end: len(q.buf)})
	q.seq++
	if len(q.msgs) == 1 {
		// The queue was empty: the writer may wait. Messages pushed after
		// this one and before the writer takes them go with it.
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	return q.seq
}

// cancel drops message seq unless a writer took it already.
func (q *sendQueue) cancel(seq uint64) {
	q.mu.Lock()
	q.cancelLocked(seq)
	q.mu.Unlock()
}

// cancelLocked is cancel with q.mu held.
func (q *sendQueue) cancelLocked(seq uint64) {
	if seq > q.taken && seq <= q.seq {
		q.msgs[seq-q.taken-1].dead = true
	}
}

// setRefusing sets refusing.
func (q *sendQueue) setRefusing(on bool) {
	q.mu.Lock()
	q.refusing = on
	q.mu.Unlock()
}

// maxKeptQueue bounds the buffer a queue keeps after a write.
const maxKeptQueue = 1 << 20

// take hands the writer every message queued, in exchange for the buffers
// it was given last time (emptied here).
func (q *sendQueue) take(buf []byte, msgs []queuedMessage) ([]byte, []queuedMessage) {
	if cap(buf) > maxKeptQueue {
		buf = nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	buf, q.buf = q.buf, buf[:0]
	msgs, q.msgs = q.msgs, msgs[:0]
	q.taken = q.seq
	return buf, msgs
}
