package policy

// ratelimitoutbox.go holds a node's report messages after their making:
// those the hub has not confirmed sent, which go again, as they were,
// before anything newer; and, for a while, those it confirmed, which a
// node that missed them may ask for again.

import (
	"cmp"
	"slices"
	"sync"
)

// Bounds on the confirmed messages a node keeps for those who ask: past
// either, its oldest go first. Messages older than a window go anyway.
const (
	keepMsgs  = 1024
	keepBytes = 1 << 20
)

// outMsg is one report message on its way, with its number and when its
// report was made (Unix nanoseconds).
type outMsg struct {
	msg  []byte
	seq  uint64
	sent int64
}

// reportOutbox is a node's report messages between their making and a
// window after. The report loop alone sends; asks, which come on the
// hub's goroutine, only queue messages again.
type reportOutbox struct {
	mu        sync.Mutex
	again     []outMsg // confirmed messages asked for again, oldest first
	unsent    []outMsg // messages not confirmed sent, oldest first
	kept      []outMsg // confirmed messages, oldest first
	keptBytes int
}

// add queues messages not sent yet.
func (o *reportOutbox) add(msgs ...outMsg) {
	o.mu.Lock()
	o.unsent = append(o.unsent, msgs...)
	o.mu.Unlock()
}

// send sends the messages asked for again, then the unsent ones, oldest
// first, until one fails, dropping those older than oldest (Unix
// nanoseconds): receivers would drop them for their age. It reports
// whether it sent any, and the failure.
func (o *reportOutbox) send(publish func([]byte) error, oldest int64) (sent bool, err error) {
	for _, unsent := range []bool{false, true} {
		for {
			m, ok := o.next(unsent, oldest)
			if !ok {
				break
			}
			if err = publish(m.msg); err != nil {
				return sent, err
			}
			sent = true
			o.sent(unsent, m)
		}
	}
	return sent, nil
}

// next returns the oldest message of the queue (unsent, or asked for
// again) not older than oldest.
func (o *reportOutbox) next(unsent bool, oldest int64) (outMsg, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := &o.again
	if unsent {
		q = &o.unsent
	}
	for len(*q) > 0 && (*q)[0].sent < oldest {
		*q = dropFirst(*q)
	}
	if len(*q) == 0 {
		*q = nil
		return outMsg{}, false
	}
	return (*q)[0], true
}

// sent takes a message off its queue once the hub confirmed it: an
// unsent one is kept for those who may ask for it.
func (o *reportOutbox) sent(unsent bool, m outMsg) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := &o.again
	if unsent {
		q = &o.unsent
	}
	// An ask may have queued others before it meanwhile.
	switch i := slices.IndexFunc(*q, func(x outMsg) bool { return x.seq == m.seq }); {
	case i == 0:
		*q = dropFirst(*q)
	case i > 0:
		*q = slices.Delete(*q, i, i+1)
	}
	if unsent {
		o.keepLocked(m)
	}
}

// keep keeps a message the hub confirmed, for those who may ask for it.
func (o *reportOutbox) keep(m outMsg) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.keepLocked(m)
}

// keepLocked is keep, with mu held.
func (o *reportOutbox) keepLocked(m outMsg) {
	o.kept = append(o.kept, m)
	o.keptBytes += len(m.msg)
	for len(o.kept) > keepMsgs || o.keptBytes > keepBytes {
		o.keptBytes -= len(o.kept[0].msg)
		o.kept = dropFirst(o.kept)
	}
}

// askedAfter queues again the confirmed messages numbered after after
// and not older than oldest, unless queued again already.
func (o *reportOutbox) askedAfter(after uint64, oldest int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	queued := make(map[uint64]bool, len(o.again))
	for _, m := range o.again {
		queued[m.seq] = true
	}
	added := false
	for _, m := range o.kept {
		if m.seq > after && m.sent >= oldest && !queued[m.seq] && len(o.again) < keepMsgs {
			o.again = append(o.again, m)
			added = true
		}
	}
	if added {
		slices.SortFunc(o.again, func(a, b outMsg) int { return cmp.Compare(a.seq, b.seq) })
	}
}

// dropFirst drops the first message of q, not keeping it reachable.
func dropFirst(q []outMsg) []outMsg {
	q[0] = outMsg{}
	return q[1:]
}
