package rpccore

// hub.go holds the topic broadcast that subscriptions use: a message is
// encoded once and handed to every subscriber of its topic.

import (
	"sync"
	"sync/atomic"
)

// Hub broadcasts messages on named topics. The in-process LocalHub is the
// default; other implementations (one backed by a message broker, say) let
// several servers share one topic space.
type Hub interface {
	// Subscribe calls deliver with every payload published on topic until
	// the returned function is called. deliver must not block.
	Subscribe(topic string, deliver func(payload []byte)) (unsubscribe func())
	// Publish hands payload, one encoded JSON value, to every subscriber of
	// topic. The payload is shared, not copied: it must not change after.
	Publish(topic string, payload []byte) error
}

// LocalHub is a Hub within one process. Publishing never waits for a
// subscriber: each subscriber's deliver function queues or drops.
type LocalHub struct {
	mu     sync.Mutex
	topics map[string]*hubTopic
}

// hubTopic holds a topic's subscribers as an immutable slice, replaced on
// every change, so that Publish reads it without a lock.
type hubTopic struct {
	subs atomic.Pointer[[]*hubSubscriber]
}

type hubSubscriber struct {
	deliver func([]byte)
}

// NewLocalHub returns an empty LocalHub.
func NewLocalHub() *LocalHub {
	return &LocalHub{topics: map[string]*hubTopic{}}
}

// Subscribe implements Hub.
func (h *LocalHub) Subscribe(topic string, deliver func(payload []byte)) (unsubscribe func()) {
	sub := &hubSubscriber{deliver: deliver}
	h.mu.Lock()
	t := h.topics[topic]
	if t == nil {
		t = &hubTopic{}
		t.subs.Store(&[]*hubSubscriber{})
		h.topics[topic] = t
	}
	old := *t.subs.Load()
	next := append(make([]*hubSubscriber, 0, len(old)+1), old...)
	next = append(next, sub)
	t.subs.Store(&next)
	h.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { h.remove(topic, sub) }) }
}

// remove takes sub off topic, and drops the topic once it has no one.
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
	if len(next) == 0 {
		delete(h.topics, topic)
	}
	t.subs.Store(&next)
}

// Publish implements Hub.
func (h *LocalHub) Publish(topic string, payload []byte) error {
	h.mu.Lock()
	t := h.topics[topic]
	h.mu.Unlock()
	if t == nil {
		return nil
	}
	for _, s := range *t.subs.Load() {
		s.deliver(payload)
	}
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

var _ Hub = (*LocalHub)(nil)
