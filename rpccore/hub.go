package rpccore

// hub.go holds the topic broadcast that subscriptions use: a message is
// encoded once and handed to every subscriber of its topic.

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Hub broadcasts messages on named topics. The in-process LocalHub is the
// default; other implementations (one backed by a message broker, say) let
// several servers share one topic space. A Hub that keeps each topic's
// recent messages also implements HistoryHub, and subscriptions that
// follow it can resume.
type Hub interface {
	// Subscribe calls deliver with every message published on topic, in
	// publish order, until the returned function is called. deliver must
	// not block. When Subscribe returns, every later publish on any node
	// sharing the hub reaches deliver.
	Subscribe(topic string, deliver func(Message)) (unsubscribe func(), err error)
	// Publish hands payload, one encoded JSON value, to every subscriber of
	// topic. The payload is shared, not copied: it must not change after.
	// An error means the message may not have reached every subscriber.
	Publish(topic string, payload []byte) error
	// Close ends the hub; its subscribers get nothing more.
	Close() error
}

// HistoryHub is a Hub that keeps each topic's recent messages, so that a
// subscriber who lost its connection can resume from its last Position.
type HistoryHub interface {
	Hub
	// KeepsHistory reports whether the hub keeps history as configured;
	// when it does not, its notifications carry no positions.
	KeepsHistory() bool
	// Head returns the position of topic's newest message: a resume from
	// it misses nothing published after the call.
	Head(ctx context.Context, topic string) (Position, error)
	// History returns, oldest first, every message of topic published after
	// the one at after, and ok. ok is false when the history no longer
	// holds all of them (they aged out, or after's epoch is not the
	// history's): then msgs is nil, never part of the gap.
	History(ctx context.Context, topic string, after Position) (msgs []Message, ok bool, err error)
}

// Position is a place in a topic's history. The epoch names one history:
// a history lost and made again has another. Offsets grow with every
// message of a topic; they need not be consecutive.
type Position struct {
	Epoch  string `json:"epoch"`
	Offset uint64 `json:"offset"`
}

// IsZero reports whether p is no position: the message came from a hub,
// or a topic, that keeps no history.
func (p Position) IsZero() bool { return p.Epoch == "" && p.Offset == 0 }

// AppendPosition appends p as the JSON object {"epoch":...,"offset":...}.
func AppendPosition(dst []byte, p Position) []byte {
	dst = append(dst, `{"epoch":`...)
	dst = jsontext.AppendQuote(dst, p.Epoch)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendUint(dst, p.Offset, 10)
	return append(dst, '}')
}

// Message is one publication as a hub delivers it: the payload, encoded
// once and shared by every subscriber, and its position in the topic's
// history (zero when there is none).
type Message struct {
	Payload  []byte
	Position Position
	tail     []byte // the notification's end, with the position; nil for "}}"
}

// NewMessage returns the message payload at pos, with the end of its
// notifications encoded once for all of its subscribers.
func NewMessage(payload []byte, pos Position) Message {
	m := Message{Payload: payload, Position: pos}
	if !pos.IsZero() {
		m.tail = append(AppendPosition(append(make([]byte, 0, 48+len(pos.Epoch)), `,"position":`...), pos), '}', '}')
	}
	return m
}

// ErrHubClosed is what a closed hub answers.
var ErrHubClosed = errors.New("rpccore: the hub is closed")

// LocalHub is a Hub within one process. Publishing never waits for a
// subscriber: each subscriber's deliver function queues or drops. Made
// with NewLocalHubWithHistory it is a HistoryHub that keeps a bounded ring
// of each topic's newest messages.
type LocalHub struct {
	mu      sync.Mutex
	topics  map[string]*hubTopic
	closed  bool
	history HistoryLimits
	epoch   string
}

// HistoryLimits bound what a hub keeps of each topic.
type HistoryLimits struct {
	// MaxMessages is how many of a topic's newest messages are kept.
	MaxMessages int
	// MaxAgeNanos drops messages older than this many nanoseconds; 0 keeps
	// them until MaxMessages pushes them out.
	MaxAgeNanos int64
}

// hubTopic holds a topic's subscribers as an immutable slice, replaced on
// every change, so that Publish reads it without a lock; and, with
// history, its ring of recent messages.
type hubTopic struct {
	subs atomic.Pointer[[]*hubSubscriber]

	publishMu sync.Mutex // orders publishes, and their history, on the topic
	ring      messageRing
}

type hubSubscriber struct {
	deliver func(Message)
}

// NewLocalHub returns an empty LocalHub that keeps no history.
func NewLocalHub() *LocalHub {
	return &LocalHub{topics: map[string]*hubTopic{}}
}

// NewLocalHubWithHistory returns an empty LocalHub that keeps, for each
// topic, its newest messages within limits; its epoch is drawn at random,
// so positions from another process (or an earlier run) do not resume.
func NewLocalHubWithHistory(limits HistoryLimits) *LocalHub {
	h := NewLocalHub()
	if limits.MaxMessages > 0 {
		h.history = limits
		h.epoch = newSubscriptionID()[2:18]
	}
	return h
}

// KeepsHistory implements HistoryHub: whether h numbers and keeps messages.
func (h *LocalHub) KeepsHistory() bool { return h.history.MaxMessages > 0 }

// topic returns topic's state, making it when create is set.
func (h *LocalHub) topic(name string, create bool) (*hubTopic, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.topicLocked(name, create)
}

// topicLocked is topic, with h.mu held.
func (h *LocalHub) topicLocked(name string, create bool) (*hubTopic, error) {
	if h.closed {
		return nil, ErrHubClosed
	}
	t := h.topics[name]
	if t == nil && create {
		t = &hubTopic{}
		t.subs.Store(&[]*hubSubscriber{})
		h.topics[name] = t
	}
	return t, nil
}

// Subscribe implements Hub.
func (h *LocalHub) Subscribe(topic string, deliver func(Message)) (unsubscribe func(), err error) {
	sub := &hubSubscriber{deliver: deliver}
	h.mu.Lock()
	t, err := h.topicLocked(topic, true)
	if err != nil {
		h.mu.Unlock()
		return nil, err
	}
	old := *t.subs.Load()
	next := append(make([]*hubSubscriber, 0, len(old)+1), old...)
	next = append(next, sub)
	t.subs.Store(&next)
	h.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { h.remove(topic, sub) }) }, nil
}

// remove takes sub off topic, and drops the topic once it has no one and
// no history.
func (h *LocalHub) remove(topic string, sub *hubSubscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[topic]
	if t == nil {
		return
	}
	old := *t.subs.Load()
	next := make([]*hubSubscriber, 0, len(old))
	for _, s := range old {
		if s != sub {
			next = append(next, s)
		}
	}
	if len(next) == 0 && !h.KeepsHistory() {
		delete(h.topics, topic)
	}
	t.subs.Store(&next)
}

// Publish implements Hub.
func (h *LocalHub) Publish(topic string, payload []byte) error {
	t, err := h.topic(topic, h.KeepsHistory())
	if err != nil || t == nil {
		return err
	}
	if !h.KeepsHistory() {
		m := Message{Payload: payload}
		for _, s := range *t.subs.Load() {
			s.deliver(m)
		}
		return nil
	}
	t.publishMu.Lock()
	defer t.publishMu.Unlock()
	m := t.ring.add(payload, h.epoch, h.history)
	for _, s := range *t.subs.Load() {
		s.deliver(m)
	}
	return nil
}

// Head implements HistoryHub.
func (h *LocalHub) Head(_ context.Context, topic string) (Position, error) {
	if !h.KeepsHistory() {
		return Position{}, nil
	}
	t, err := h.topic(topic, true)
	if err != nil {
		return Position{}, err
	}
	t.publishMu.Lock()
	defer t.publishMu.Unlock()
	return Position{Epoch: h.epoch, Offset: t.ring.last}, nil
}

// History implements HistoryHub.
func (h *LocalHub) History(_ context.Context, topic string, after Position) ([]Message, bool, error) {
	if !h.KeepsHistory() || after.Epoch != h.epoch {
		return nil, false, nil
	}
	t, err := h.topic(topic, true)
	if err != nil {
		return nil, false, err
	}
	t.publishMu.Lock()
	defer t.publishMu.Unlock()
	msgs, ok := t.ring.after(after.Offset, h.history)
	return msgs, ok, nil
}

// Close implements Hub: later subscribes and publishes fail.
func (h *LocalHub) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.topics = map[string]*hubTopic{}
	return nil
}

// Subscribers returns the number of subscribers of topic.
func (h *LocalHub) Subscribers(topic string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[topic]; t != nil {
		return len(*t.subs.Load())
	}
	return 0
}

var _ HistoryHub = (*LocalHub)(nil)
