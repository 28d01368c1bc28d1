package natshub

import (
	"errors"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// publisher holds the publishes waiting for NATS.
type publisher struct {
	pubMu    sync.Mutex
	queue    []outgoing
	allLocal bool   // every queued message reached local subscribers when queued
	counter  uint64 // numbers this hub's messages, in the order they are queued or sent
	localSeq uint64 // offsets of the local positions
}

// outgoing is one publish on its way to NATS.
type outgoing struct {
	topic   string
	payload []byte
	n       uint64 // the message's number
	tries   int    // refusals by JetStream so far
}

// id is the message's Nats-Msg-Id: JetStream stores a message sent again
// under the same id once.
func (h *Hub) id(o outgoing) string { return h.node + "-" + strconv.FormatUint(o.n, 36) }

// maxRefusals is how often JetStream may refuse a queued message before
// it is dropped (and logged).
const maxRefusals = 3

// Publish implements rpccore.Hub. With history, it returns once the
// stream has stored the message, or once it is queued; without, once the
// message is on its way. Its errors are *rpccore.Error with code
// rpccore.CodeServerError.
func (h *Hub) Publish(topic string, payload []byte) error {
	if h.closed.Load() {
		return rpccore.ErrHubClosed
	}
	h.pubMu.Lock()
	h.counter++
	o := outgoing{topic: topic, payload: payload, n: h.counter}
	if len(h.queue) > 0 || !h.up() {
		defer h.pubMu.Unlock()
		return h.enqueueLocked(o, !h.nc.IsConnected())
	}
	if h.js != nil {
		h.pubMu.Unlock()
		return h.publishStored(o)
	}
	err := h.nc.Publish(h.opts.SubjectPrefix+".l."+EncodeTopic(topic), payload)
	if err == nil {
		h.pubMu.Unlock()
		h.m.out.Inc()
		h.deliverLocal(o)
		return nil
	}
	defer h.pubMu.Unlock()
	if !notSent(err) {
		return serverError("publishing on NATS", err)
	}
	return h.enqueueLocked(o, true)
}

// up reports whether publishes may go to NATS now.
func (h *Hub) up() bool {
	return h.nc.IsConnected() && (h.js == nil || h.history.isEnsured())
}

// notSent reports whether err means the NATS client did not send the
// message, for want of a connection.
func notSent(err error) bool {
	return errors.Is(err, nats.ErrReconnectBufExceeded) || errors.Is(err, nats.ErrConnectionReconnecting)
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

// publishStored publishes o to the stream and waits for its
// acknowledgement; without one, o is queued to be sent again.
func (h *Hub) publishStored(o outgoing) error {
	err := h.sendStored(o)
	if err == nil {
		return nil
	}
	if refused(err) {
		return serverError("publishing on NATS", err)
	}
	h.log.Warn("NATS did not acknowledge a publish; it is queued to be sent again", zap.String("topic", o.topic), zap.Error(err))
	h.pubMu.Lock()
	defer h.pubMu.Unlock()
	// A message that may have reached the stream is not delivered here
	// now: it comes back through NATS.
	return h.enqueueLocked(o, notSent(err) && !h.nc.IsConnected())
}

// sendStored publishes o to the stream and waits for its acknowledgement.
func (h *Hub) sendStored(o outgoing) error {
	ctx, cancel := h.session.wait(h.opts.PublishTimeout)
	defer cancel()
	msg := &nats.Msg{
		Subject: h.opts.SubjectPrefix + ".h." + EncodeTopic(o.topic),
		Header:  nats.Header{jetstream.MsgIDHeader: []string{h.id(o)}},
		Data:    o.payload,
	}
	_, err := h.js.PublishMsg(ctx, msg, jetstream.WithRetryAttempts(0))
	if err == nil {
		h.m.out.Inc()
	} else if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
		h.history.setEnsured(false) // make the stream again
		h.wake()
	}
	return err
}

// enqueueLocked queues o for NATS, delivering it to local subscribers at
// once when local is set (NATS is unreachable) and every message ahead of
// it was too, so that they get each publisher's messages in order.
// Called with pubMu held.
func (h *Hub) enqueueLocked(o outgoing, local bool) error {
	if h.closed.Load() {
		return rpccore.ErrHubClosed
	}
	if len(h.queue) >= h.opts.MaxPending {
		return unreachable("max_pending (" + strconv.Itoa(h.opts.MaxPending) +
			") publishes already wait for it: this message was not published")
	}
	if len(h.queue) == 0 {
		h.allLocal = true
	}
	if h.js == nil {
		local = true // this process gets no echo of its own messages
	}
	local = local && h.allLocal
	h.allLocal = local
	h.queue = append(h.queue, o)
	if local {
		h.deliverLocal(o)
	}
	h.wake()
	return nil
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

// flushQueue sends the queued messages, in order, while NATS takes them.
func (h *Hub) flushQueue() error {
	for {
		h.pubMu.Lock()
		if len(h.queue) == 0 || !h.up() {
			h.pubMu.Unlock()
			return nil
		}
		o := h.queue[0]
		var err error
		if h.js == nil {
			if err = h.nc.Publish(h.opts.SubjectPrefix+".l."+EncodeTopic(o.topic), o.payload); err == nil {
				h.m.out.Inc()
			}
		} else {
			h.pubMu.Unlock() // only this loop takes messages off the queue
			err = h.sendStored(o)
			h.pubMu.Lock()
		}
		drop := err != nil && refused(err)
		if drop {
			if h.queue[0].tries++; h.queue[0].tries < maxRefusals {
				drop = false
			} else {
				h.log.Error("NATS refused a queued publish; it is dropped", zap.String("topic", o.topic), zap.Error(err))
			}
		}
		if err == nil || drop {
			h.queue[0] = outgoing{}
			h.queue = h.queue[1:]
			if len(h.queue) == 0 {
				h.queue = nil
			}
		}
		h.pubMu.Unlock()
		if err != nil && !drop {
			return err
		}
	}
}

// dropQueue empties the queue and returns how many it held.
func (h *Hub) dropQueue() int {
	h.pubMu.Lock()
	defer h.pubMu.Unlock()
	n := len(h.queue)
	h.queue = nil
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
