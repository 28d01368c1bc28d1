package natshub

import (
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
)

// maxUnacked bounds the messages sent to the stream and not yet
// acknowledged: the sender sends up to this many at once, then waits for
// their acknowledgements, while the next publishes gather in the queue.
const maxUnacked = 256

// sendLoop is the goroutine that sends the queue to NATS: woken by a
// publish, or once NATS (and with history, the stream) is ready again.
// After a failure it waits retryWait, or until NATS is ready again.
func (h *Hub) sendLoop() {
	defer close(h.sendDone)
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	var complaints complaints
	failed := false
	for {
		select {
		case <-h.done:
			return
		case <-h.ready:
		case <-retry.C:
			failed = false
		case <-h.sendKick:
			if failed {
				continue
			}
		}
		err := h.flushQueue()
		complaints.say(h.log, "queue", err, "could not send queued publishes to NATS; trying again")
		if failed = err != nil; failed {
			retry.Reset(retryWait)
		}
	}
}

// wakeSender has the send loop look at the queue.
func (h *Hub) wakeSender() {
	select {
	case h.sendKick <- struct{}{}:
	default:
	}
}

// readyAgain tells the send loop that NATS, and with history the stream,
// can take publishes again.
func (h *Hub) readyAgain() {
	select {
	case h.ready <- struct{}{}:
	default:
	}
}

// flushQueue sends the queued messages, in order, while NATS takes them.
func (h *Hub) flushQueue() error {
	for {
		h.pubMu.Lock()
		if len(h.queue) == 0 || !h.up() {
			h.pubMu.Unlock()
			return nil
		}
		var err error
		var stored int
		if h.js == nil {
			o := h.queue[0]
			if err = h.nc.Publish(h.opts.SubjectPrefix+".l."+EncodeTopic(o.topic), o.payload); err == nil {
				h.m.out.Inc()
				stored = 1
			}
		} else {
			// Only this loop takes messages off the queue: the batch stays
			// at its head while the lock is released.
			batch := append(h.batch[:0], h.queue[:min(len(h.queue), h.window)]...)
			h.pubMu.Unlock()
			stored, err = h.sendBatch(batch)
			clear(batch)
			h.batch = batch
			h.pubMu.Lock()
		}
		h.queue = h.queue[stored:]
		taken := stored
		if err != nil && refused(err) {
			if h.queue[0].tries++; h.queue[0].tries >= maxRefusals {
				h.log.Error("NATS refused a queued publish; it is dropped", zap.String("topic", h.queue[0].topic), zap.Error(err))
				h.queue = h.queue[1:]
				taken++
				err = nil
			}
		}
		if len(h.queue) == 0 {
			h.queue = nil
		}
		h.freeSlots(taken)
		// After a failure, one message at a time until one is stored: a
		// message NATS did not store must not be overtaken by the next.
		h.window = maxUnacked
		if err != nil {
			h.window = 1
		}
		h.pubMu.Unlock()
		if err != nil {
			return err
		}
	}
}

// sendBatch sends batch to the stream, every message at once, and waits
// for their acknowledgements. It returns how many of the first were
// stored, and the error of the first that was not. Messages stored after
// one that was not are sent again with it, and the stream stores them
// once, by their message id.
func (h *Hub) sendBatch(batch []outgoing) (stored int, err error) {
	futures := h.futures[:0]
	defer func() { clear(futures); h.futures = futures }()
	var sendErr error
	for _, o := range batch {
		f, err := h.js.PublishMsgAsync(&nats.Msg{
			Subject: h.opts.SubjectPrefix + ".h." + EncodeTopic(o.topic),
			Header:  nats.Header{jetstream.MsgIDHeader: []string{h.id(o)}},
			Data:    o.payload,
		}, jetstream.WithRetryAttempts(0))
		if err != nil {
			sendErr = err
			break
		}
		futures = append(futures, f)
	}
	ctx, cancel := h.session.wait(h.opts.PublishTimeout + time.Second)
	defer cancel()
	failedAt, overtaken := -1, 0
	for i, f := range futures {
		var ferr error
		select {
		case <-f.Ok():
			h.m.out.Inc()
			if failedAt < 0 {
				stored = i + 1
			} else {
				overtaken++
			}
			continue
		case ferr = <-f.Err():
		case <-ctx.Done():
			ferr = ctx.Err()
		}
		if failedAt < 0 {
			failedAt, err = i, ferr
		}
		if ctx.Err() != nil {
			break
		}
	}
	if overtaken > 0 {
		h.log.Warn("NATS stored messages after one it did not store; that one is sent again, after them",
			zap.String("topic", batch[failedAt].topic), zap.Int("stored_after", overtaken), zap.Error(err))
	}
	if err == nil {
		err = sendErr
	}
	if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
		h.history.setEnsured(false) // make the stream again
		h.wake()
	}
	return stored, err
}
