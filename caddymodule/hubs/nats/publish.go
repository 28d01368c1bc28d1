package natshub

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// publisher holds the publishes on their way to NATS: with history,
// every one until the stream has stored it; without, those waiting for
// NATS to be reachable.
type publisher struct {
	pubMu    sync.Mutex
	queue    []outgoing
	counter  uint64 // numbers this hub's messages, in the order they are queued or sent
	localSeq uint64 // offsets of the local positions
	window   int    // how many messages the sender sends at once

	// The send loop's own buffers.
	batch   []outgoing
	futures []jetstream.PubAckFuture
}

// outgoing is one publish on its way to NATS.
type outgoing struct {
	topic   string
	payload []byte
	n       uint64 // the message's number
	tries   int    // refusals by JetStream so far
	local   bool   // delivered to this process's subscribers already
}

// id is the message's Nats-Msg-Id: JetStream stores a message sent again
// under the same id once.
func (h *Hub) id(o outgoing) string { return h.node + "-" + strconv.FormatUint(o.n, 36) }

// maxRefusals is how often JetStream may refuse a queued message before
// it is dropped (and logged).
const maxRefusals = 3

// Publish implements rpccore.Hub. With history, it returns once the hub
// holds the message: the stream stores it shortly after, and the hub
// sends it again until it does, in order; when max_pending messages wait
// for NATS's acknowledgement, Publish waits up to publish_timeout for
// room. Without history, it returns once the message is on its way. Its
// errors are *rpccore.Error with code rpccore.CodeServerError.
func (h *Hub) Publish(topic string, payload []byte) error {
	if h.closed.Load() {
		return rpccore.ErrHubClosed
	}
	h.pubMu.Lock()
	o := outgoing{topic: topic, payload: payload}
	if h.js == nil && len(h.queue) == 0 && h.nc.IsConnected() {
		h.counter++
		o.n = h.counter
		err := h.nc.Publish(h.opts.SubjectPrefix+".l."+EncodeTopic(topic), payload)
		if err == nil {
			h.pubMu.Unlock()
			h.m.out.Inc()
			h.deliverLocal(o)
			return nil
		}
		if !notSent(err) {
			h.pubMu.Unlock()
			return serverError("publishing on NATS", err)
		}
	}
	h.pubMu.Unlock()
	if err := h.takeSlot(); err != nil {
		return err
	}
	h.pubMu.Lock()
	defer h.pubMu.Unlock()
	if h.closed.Load() {
		h.freeSlots(1)
		return rpccore.ErrHubClosed
	}
	h.counter++
	o.n = h.counter
	h.enqueueLocked(o)
	return nil
}

// takeSlot takes one of the queue's max_pending places, waiting for one,
// in turn, up to publish_timeout while NATS is connected (it is taking
// messages off the queue); with NATS unreachable, or after the wait, a
// full queue is an error.
func (h *Hub) takeSlot() error {
	select {
	case h.slots <- struct{}{}:
		return nil
	default:
	}
	if !h.nc.IsConnected() {
		return h.queueFull()
	}
	timer := time.NewTimer(h.opts.PublishTimeout)
	defer timer.Stop()
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-timer.C:
		return h.queueFull()
	case <-h.done:
		return rpccore.ErrHubClosed
	}
}

// freeSlots gives back n places of the queue.
func (h *Hub) freeSlots(n int) {
	for range n {
		<-h.slots
	}
}

// queueFull is Publish's error when max_pending messages wait already.
func (h *Hub) queueFull() error {
	max := strconv.Itoa(h.opts.MaxPending)
	if h.nc.IsConnected() {
		return serverError("publishing on NATS", errors.New("max_pending ("+max+
			") publishes wait for NATS's acknowledgement: this message was not published"))
	}
	return unreachable("max_pending (" + max + ") publishes already wait for it: this message was not published")
}

// up reports whether publishes may go to NATS now.
func (h *Hub) up() bool {
	return h.nc.IsConnected() && (h.js == nil || h.history.isEnsured())
}

// notSent reports whether err means the NATS client did not send the
// message, for want of a connection.
func notSent(err error) bool {
	return errors.Is(err, nats.ErrReconnectBufExceeded) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, nats.ErrConnectionClosed)
}

// refused reports whether err is NATS refusing the message itself, which
// sending it again will not change.
func refused(err error) bool {
	if errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, nats.ErrBadSubject) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamMessageExceedsMaximum
}

// enqueueLocked queues o for NATS and wakes the sender. Without history,
// o reaches this process's subscribers at once (NATS does not echo a
// process's own messages). With history, it reaches them through NATS,
// with its position in the stream, unless this process delivers alone
// (see deliversAlone) and every message queued before it was delivered
// here too, so that they get each publisher's messages in order. Called
// with pubMu held.
func (h *Hub) enqueueLocked(o outgoing) {
	last := len(h.queue) - 1
	o.local = h.js == nil || (h.deliversAlone() && (last < 0 || h.queue[last].local))
	h.queue = append(h.queue, o)
	if o.local {
		h.deliverLocal(o)
	}
	h.wakeSender()
}

// deliverLocal hands o to this process's subscribers of its topic. With
// history, its position is a local one, and its number is kept so that
// its copy coming back through NATS is not delivered again.
func (h *Hub) deliverLocal(o outgoing) {
	t := h.topic(o.topic)
	if t == nil {
		return
	}
	if h.js == nil {
		h.fanout(t, rpccore.Message{Payload: o.payload})
		return
	}
	t.deliver.Lock()
	defer t.deliver.Unlock()
	if len(t.suppress) >= h.opts.MaxPending {
		t.suppress = t.suppress[1:]
	}
	t.suppress = append(t.suppress, o.n)
	h.localSeq++
	h.fanout(t, rpccore.NewMessage(o.payload, rpccore.Position{Epoch: "local-" + h.node, Offset: h.localSeq}))
}

// dropQueue empties the queue and returns how many it held.
func (h *Hub) dropQueue() int {
	h.pubMu.Lock()
	defer h.pubMu.Unlock()
	n := len(h.queue)
	h.queue = nil
	h.freeSlots(n)
	return n
}

// serverError is what the hub answers for a failure of NATS.
func serverError(what string, err error) *rpccore.Error {
	return &rpccore.Error{Code: rpccore.CodeServerError, Message: "subscription hub: " + what + ": " + err.Error()}
}

// unreachable is what the hub answers when it needs NATS and cannot
// reach it.
func unreachable(what string) *rpccore.Error {
	return &rpccore.Error{Code: rpccore.CodeServerError, Message: "subscription hub: NATS is unreachable, and " + what}
}
