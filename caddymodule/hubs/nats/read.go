package natshub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// storedMsg is one message read from the stream.
type storedMsg struct {
	seq  uint64
	id   string
	data []byte
}

// readBatch is how many messages one direct get asks for.
const readBatch = 256

// directGet is the request of a batched direct get.
type directGet struct {
	Seq     uint64 `json:"seq"`
	NextFor string `json:"next_by_subj"`
	Batch   int    `json:"batch"`
}

// readStored calls fn with subject's stored messages from sequence from
// on, oldest first, before until (0: to the end), with batched direct
// gets that leave nothing behind on the server. It stops after limit
// messages (0: no limit) and returns how many it read.
func (h *Hub) readStored(ctx context.Context, subject string, from, until uint64, limit int, fn func(storedMsg)) (int, error) {
	inbox := h.nc.NewInbox()
	sub, err := h.nc.SubscribeSync(inbox)
	if err != nil {
		return 0, err
	}
	defer sub.Unsubscribe()
	r := storedReader{h: h, sub: sub, from: from, until: until, limit: limit, fn: fn}
	for {
		req, _ := json.Marshal(directGet{Seq: r.from, NextFor: subject, Batch: readBatch})
		if err := h.nc.PublishRequest("$JS.API.DIRECT.GET."+h.stream, inbox, req); err != nil {
			return r.n, err
		}
		if more, err := r.batch(ctx); !more || err != nil {
			return r.n, err
		}
	}
}

// storedReader reads the answers to one readStored's requests.
type storedReader struct {
	h     *Hub
	sub   *nats.Subscription
	from  uint64 // the next sequence to ask for
	until uint64
	limit int
	n     int
	fn    func(storedMsg)
}

// batch reads the answer to one request, and reports whether there is
// more to ask for.
func (r *storedReader) batch(ctx context.Context) (more bool, err error) {
	for {
		wait, cancel := r.h.session.within(ctx, r.h.opts.PublishTimeout)
		msg, err := r.sub.NextMsgWithContext(wait)
		cancel()
		if err != nil {
			return false, err
		}
		switch status := msg.Header.Get("Status"); status {
		case "":
		case "204": // the end of the batch
			return msg.Header.Get(numPendingHeader) != "0", nil
		case "404": // nothing (more)
			return false, nil
		case "503":
			return false, nats.ErrNoResponders
		default:
			return false, fmt.Errorf("NATS answered %s %s", status, msg.Header.Get("Description"))
		}
		if msg.Header.Get(numPendingHeader) == "" {
			return false, errors.New("the NATS server does not answer batched reads (it needs NATS 2.11 or later)")
		}
		seq, _ := strconv.ParseUint(msg.Header.Get(jetstream.SequenceHeader), 10, 64)
		if r.until != 0 && seq >= r.until {
			return false, nil
		}
		r.fn(storedMsg{seq: seq, id: msg.Header.Get(jetstream.MsgIDHeader), data: msg.Data})
		r.from = seq + 1
		if r.n++; r.limit > 0 && r.n >= r.limit {
			return false, nil
		}
	}
}
