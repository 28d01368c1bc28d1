package natshub

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// topic is one topic with local subscribers, and the one NATS
// subscription that brings its messages.
type topic struct {
	name     string
	live     string // the subject its messages come on
	stored   string // the subject it is stored under, with history
	subs     atomic.Pointer[[]*subscriber]
	refs     int                // under Hub.mu
	sub      *nats.Subscription // under Hub.mu
	ready    chan struct{}      // closed once the NATS subscription is set up
	err      error              // the setup's, read after ready
	repair   atomic.Bool        // the run loop should read what it missed
	deliver  sync.Mutex         // one delivery at a time, in order
	suppress []uint64           // under deliver: see suppressed

	posMu sync.Mutex
	pos   watermark
}

// watermark is where a topic's delivery stands in the stream: every
// message of the topic up to w was delivered, or came before the NATS
// subscription.
type watermark struct {
	epoch string
	w     uint64
	known bool
}

type subscriber struct{ deliver func(rpccore.Message) }

func (t *topic) position() watermark {
	t.posMu.Lock()
	defer t.posMu.Unlock()
	return t.pos
}

func (t *topic) setPosition(p watermark) {
	t.posMu.Lock()
	t.pos = p
	t.posMu.Unlock()
}

// fanout hands m to every subscriber of t.
func (h *Hub) fanout(t *topic, m rpccore.Message) {
	if h.closed.Load() {
		return
	}
	for _, s := range *t.subs.Load() {
		s.deliver(m)
	}
}

// Subscribe implements rpccore.Hub. The first local subscriber of a topic
// makes this process's NATS subscription to it, and waits until NATS has
// it; the last one's unsubscribe ends it.
func (h *Hub) Subscribe(name string, deliver func(rpccore.Message)) (unsubscribe func(), err error) {
	s := &subscriber{deliver: deliver}
	h.mu.Lock()
	if h.closed.Load() {
		h.mu.Unlock()
		return nil, rpccore.ErrHubClosed
	}
	t := h.topics[name]
	create := t == nil
	if create {
		enc := EncodeTopic(name)
		t = &topic{name: name, live: h.opts.SubjectPrefix + ".l." + enc, ready: make(chan struct{})}
		if h.js != nil {
			t.stored = h.opts.SubjectPrefix + ".h." + enc
		}
		t.subs.Store(&[]*subscriber{})
		h.topics[name] = t
	}
	t.refs++
	old := *t.subs.Load()
	next := append(append(make([]*subscriber, 0, len(old)+1), old...), s)
	t.subs.Store(&next)
	h.mu.Unlock()
	if create {
		t.err = h.setup(t)
		close(t.ready)
	} else {
		<-t.ready
	}
	if t.err != nil {
		h.remove(t, s)
		return nil, t.err
	}
	var once sync.Once
	return func() { once.Do(func() { h.remove(t, s) }) }, nil
}

// remove takes s off t, and ends t's NATS subscription with its last
// subscriber.
func (h *Hub) remove(t *topic, s *subscriber) {
	h.mu.Lock()
	old := *t.subs.Load()
	next := make([]*subscriber, 0, len(old))
	for _, o := range old {
		if o != s {
			next = append(next, o)
		}
	}
	t.subs.Store(&next)
	t.refs--
	var sub *nats.Subscription
	if t.refs == 0 || t.err != nil {
		if h.topics[t.name] == t {
			delete(h.topics, t.name)
		}
		if t.refs == 0 {
			sub, t.sub = t.sub, nil
		}
	}
	h.mu.Unlock()
	if sub != nil {
		_ = sub.Unsubscribe()
	}
}

// setup makes t's NATS subscription, waits until NATS has it, and with
// history reads where the topic stands.
func (h *Hub) setup(t *topic) error {
	handler := h.onCore(t)
	if h.js != nil {
		handler = h.onStored(t)
	}
	sub, err := h.nc.Subscribe(t.live, handler)
	if err != nil {
		return serverError("subscribing on NATS", err)
	}
	h.mu.Lock()
	t.sub = sub
	h.mu.Unlock()
	// A flush cut short by a new session (the connection was made again
	// meanwhile: NATS got the subscription with it) is tried in that one.
	for tries := 0; h.nc.IsConnected(); tries++ {
		err := h.flush()
		if err == nil || !h.nc.IsConnected() {
			break
		}
		if !errors.Is(err, context.Canceled) || tries == 2 {
			return serverError("NATS did not confirm the subscription", err)
		}
	}
	if h.js != nil {
		h.baseline(t)
	}
	return nil
}

// snapshot returns the topics with local subscribers.
func (h *Hub) snapshot() []*topic {
	h.mu.Lock()
	defer h.mu.Unlock()
	ts := make([]*topic, 0, len(h.topics))
	for _, t := range h.topics {
		ts = append(ts, t)
	}
	return ts
}

// topic returns the topic's state, nil when it has no local subscriber.
func (h *Hub) topic(name string) *topic {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.topics[name]
}
