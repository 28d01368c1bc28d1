package rpccore

// outbox.go is a peer's send queue: answers wait for room (which stops the
// reader, and so the client), notifications obey the slow-consumer policy,
// and the writer takes everything queued at once so that it can write it
// with one flush. The writer runs only while there is something to write:
// an idle connection keeps no writer goroutine.

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// SlowConsumerPolicy says what happens to a notification for a peer whose
// send queue is full.
type SlowConsumerPolicy int

const (
	// DropOldest drops the oldest queued notification to make room.
	DropOldest SlowConsumerPolicy = iota
	// Disconnect ends the connection.
	Disconnect
)

// ErrSlowConsumer ends a peer whose send queue overflowed under the
// Disconnect policy.
var ErrSlowConsumer = errors.New("rpccore: peer is not reading fast enough")

// outMsg is one message to send: head, then body and a closing "}}" when
// body is set (the shared result of a broadcast after a per-subscription
// envelope).
type outMsg struct {
	head         []byte
	body         []byte
	tail         []byte     // ends a notification in place of "}}" when set
	pooled       *[]byte    // returned to the buffer pool once written
	run          *answerRun // when set, head is the run's answers, each written apart; the run is pooled once written
	notification bool
}

// outbox is the queue between a peer's producers and its writer.
type outbox struct {
	mu            sync.Mutex
	room          sync.Cond // signalled when the writer takes the queue
	queue         []outMsg
	spare         []outMsg
	notifications int
	answers       int
	limit         int
	policy        SlowConsumerPolicy
	writer        func() // started on its own goroutine when the queue fills from empty
	writing       bool   // the writer is running
	idle          sync.Cond
	closed        bool
	dropped       uint64
	events        PeerObserver
}

// newOutbox returns an outbox that runs writer (which calls take until it
// returns nil) whenever messages wait and no writer runs.
func newOutbox(limit int, policy SlowConsumerPolicy, events PeerObserver, writer func()) *outbox {
	o := &outbox{limit: limit, policy: policy, events: events, writer: writer}
	o.room.L = &o.mu
	o.idle.L = &o.mu
	return o
}

// signal starts the writer unless it runs; the caller holds mu.
func (o *outbox) signal() {
	if !o.writing {
		o.writing = true
		go o.writer()
	}
}

// pushAnswer queues an answer (or a call to the client), waiting while
// the queue is full of them. It reports false once the outbox is closed.
func (o *outbox) pushAnswer(m outMsg) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.answers >= o.limit && !o.closed {
		o.room.Wait()
	}
	if o.closed {
		return false
	}
	o.queue = append(o.queue, m)
	o.answers++
	o.signal()
	return true
}

// pushAnswers queues m, which holds n answers (a run), waiting while the
// queue is full of answers; a run may take the queue past its limit once.
// It reports false once the outbox is closed.
func (o *outbox) pushAnswers(m outMsg, n int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.answers >= o.limit && !o.closed {
		o.room.Wait()
	}
	if o.closed {
		return false
	}
	o.queue = append(o.queue, m)
	o.answers += n
	o.signal()
	return true
}

// pushNotification queues a notification without waiting. When the queue
// holds its limit of notifications, DropOldest drops the oldest one and
// Disconnect fails with ErrSlowConsumer.
func (o *outbox) pushNotification(m outMsg) error {
	m.notification = true
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return ErrPeerClosed
	}
	if o.notifications >= o.limit {
		if o.policy == Disconnect {
			return ErrSlowConsumer
		}
		for i := range o.queue {
			if o.queue[i].notification {
				o.queue = append(o.queue[:i], o.queue[i+1:]...)
				break
			}
		}
		o.notifications--
		o.dropped++
		o.events.NotificationsDropped(1)
	}
	o.queue = append(o.queue, m)
	o.notifications++
	o.signal()
	return nil
}

// pushNotificationWait queues a notification, waiting while the queue
// holds its limit of notifications, until done ends (ErrPeerClosed).
func (o *outbox) pushNotificationWait(m outMsg, done context.Context) error {
	m.notification = true
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.notifications >= o.limit && !o.closed {
		// The writer's take wakes the waiters; the end of done must too.
		stop := context.AfterFunc(done, func() {
			o.mu.Lock()
			o.room.Broadcast()
			o.mu.Unlock()
		})
		defer stop()
		for o.notifications >= o.limit && !o.closed && done.Err() == nil {
			o.room.Wait()
		}
	}
	if o.closed || done.Err() != nil {
		return ErrPeerClosed
	}
	o.queue = append(o.queue, m)
	o.notifications++
	o.signal()
	return nil
}

// take returns everything queued, or nil when nothing is: the writer
// then stops, to be started again by the next push. Before it stops it
// yields once, so that a connection answering a stream of calls keeps its
// writer. The slice is valid until the next take.
func (o *outbox) take() []outMsg {
	for yielded := false; ; yielded = true {
		o.mu.Lock()
		if len(o.queue) > 0 {
			break
		}
		if yielded {
			o.writing = false
			o.idle.Broadcast()
			o.mu.Unlock()
			return nil
		}
		o.mu.Unlock()
		runtime.Gosched()
	}
	defer o.mu.Unlock()
	taken, written := o.queue, o.spare
	clear(written)
	o.queue, o.spare = written[:0], taken
	o.answers, o.notifications = 0, 0
	o.room.Broadcast()
	return taken
}

// close stops further pushes and waits until the writer has written what
// was queued (or given up) and stopped.
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.room.Broadcast()
	for o.writing {
		o.idle.Wait()
	}
}

// droppedCount returns how many notifications were dropped.
func (o *outbox) droppedCount() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dropped
}
