package natshub

import (
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Headers of the messages the stream republishes.
const (
	lastSequenceHeader = "Nats-Last-Sequence" // the previous sequence of the same subject
	numPendingHeader   = "Nats-Num-Pending"
)

// onCore delivers the messages of a topic without history.
func (h *Hub) onCore(t *topic) nats.MsgHandler {
	return func(msg *nats.Msg) {
		h.m.in.Inc()
		if !h.valid(t.name, msg.Data) {
			return
		}
		h.fanout(t, rpccore.Message{Payload: msg.Data})
	}
}

// valid reports whether payload is one JSON value, as every publish is;
// anything else on the hub's subjects is dropped, so that no client gets
// a broken notification.
func (h *Hub) valid(topic string, payload []byte) bool {
	if jsontext.Valid(payload) {
		return true
	}
	h.log.Warn("dropped a message that is not JSON", zap.String("topic", topic), zap.Int("bytes", len(payload)))
	return false
}

// onStored delivers the messages the stream republishes for a topic, in
// the order of their sequences: a message whose previous sequence on the
// topic was not delivered here first has the missing ones read from the
// history and delivered before it.
func (h *Hub) onStored(t *topic) nats.MsgHandler {
	return func(msg *nats.Msg) {
		h.m.in.Inc()
		seq, _ := strconv.ParseUint(msg.Header.Get(jetstream.SequenceHeader), 10, 64)
		if seq == 0 {
			h.log.Warn("dropped a message that did not come from the hub's stream", zap.String("subject", msg.Subject))
			return
		}
		prev, _ := strconv.ParseUint(msg.Header.Get(lastSequenceHeader), 10, 64)
		t.deliver.Lock()
		defer t.deliver.Unlock()
		h.history.noteSeq(seq)
		pos := t.position()
		if !pos.known {
			// NATS was never reached when the topic was subscribed to: its
			// subscribers start here.
			if pos = h.learnPosition(t); !pos.known {
				return
			}
			pos.w = min(pos.w, seq-1)
		}
		switch {
		case seq <= pos.w:
			// Delivered already, or from before the subscription; or the
			// stream was made again, which the run loop finds out.
			h.checkEpochSoon()
			return
		case prev > pos.w:
			if !h.repair(t, pos, seq) {
				// The run loop's repair brings this message too.
				t.repair.Store(true)
				h.wake()
				return
			}
		}
		h.deliverStored(t, pos.epoch, seq, msg.Header.Get(jetstream.MsgIDHeader), msg.Data)
	}
}

// learnPosition reads the stream's epoch for t, whose subscription was
// made before NATS was ever reached.
func (h *Hub) learnPosition(t *topic) watermark {
	ctx, cancel := h.session.wait(h.opts.PublishTimeout)
	defer cancel()
	info, err := h.streamInfo(ctx)
	if err != nil {
		h.log.Warn("dropped a message: the stream's epoch could not be read", zap.String("topic", t.name), zap.Error(err))
		return watermark{}
	}
	pos := watermark{epoch: epochOf(info), w: info.State.LastSeq, known: true}
	t.setPosition(pos)
	return pos
}

// deliverStored delivers the stored message seq of t, unless this process
// delivered it already while NATS was unreachable. Called with t.deliver
// held, in sequence order.
func (h *Hub) deliverStored(t *topic, epoch string, seq uint64, id string, payload []byte) {
	// The watermark moves before the subscribers are read: a subscriber
	// added meanwhile either gets the message or a Head past it.
	t.setPosition(watermark{epoch: epoch, w: seq, known: true})
	if h.suppressed(t, id) || !h.valid(t.name, payload) {
		return
	}
	h.fanout(t, rpccore.NewMessage(payload, rpccore.Position{Epoch: epoch, Offset: seq}))
}

// repair reads t's messages after pos and before until (0: all of them)
// from the history and delivers them, and reports whether it could.
// Called with t.deliver held.
func (h *Hub) repair(t *topic, pos watermark, until uint64) bool {
	ctx, cancel := h.session.wait(4 * h.opts.PublishTimeout)
	defer cancel()
	n := 0
	_, err := h.readStored(ctx, t.stored, pos.w+1, until, 0, func(s storedMsg) {
		h.deliverStored(t, pos.epoch, s.seq, s.id, s.data)
		n++
	})
	if n > 0 {
		h.m.gapRepairs.Inc()
		h.log.Info("delivered messages missed on core NATS, read from the history",
			zap.String("topic", t.name), zap.Int("messages", n))
	}
	if err != nil {
		h.log.Warn("could not read missed messages from the history; trying again", zap.String("topic", t.name), zap.Error(err))
		return false
	}
	return true
}

// suppressed reports whether the message with id is this process's own,
// delivered here already while NATS was unreachable. Those messages' ids
// are listed in t.suppress in the order NATS stores them, so the ones
// listed before id came back, or never will. Called with t.deliver held.
func (h *Hub) suppressed(t *topic, id string) bool {
	if len(t.suppress) == 0 {
		return false
	}
	rest, own := strings.CutPrefix(id, h.node+"-")
	if !own {
		return false
	}
	n, err := strconv.ParseUint(rest, 36, 64)
	if err != nil {
		return false
	}
	for len(t.suppress) > 0 && t.suppress[0] < n {
		t.suppress = t.suppress[1:]
	}
	if len(t.suppress) > 0 && t.suppress[0] == n {
		t.suppress = t.suppress[1:]
		return true
	}
	return false
}

// baseline sets where a new topic subscription starts: the stream's last
// sequence, read once NATS has the subscription; or, with NATS
// unreachable, the last this process knows of.
func (h *Hub) baseline(t *topic) {
	var pos watermark
	if h.nc.IsConnected() {
		ctx, cancel := h.session.wait(h.opts.PublishTimeout)
		info, err := h.streamInfo(ctx)
		cancel()
		if err == nil {
			pos = watermark{epoch: epochOf(info), w: info.State.LastSeq, known: true}
		}
	}
	if !pos.known {
		pos.epoch, pos.w = h.history.known()
		pos.known = pos.epoch != ""
	}
	if !pos.known {
		return
	}
	t.deliver.Lock()
	if !t.position().known {
		t.setPosition(pos)
	}
	t.deliver.Unlock()
}
