package natshub

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Hub is a rpccore.HistoryHub shared by every process connected to the
// same NATS with the same subject prefix. A publish on any of them reaches
// the subscribers of all, in publish order per topic and publisher.
//
// While NATS is unreachable (at start, or lost while serving), a publish
// reaches this process's own subscribers at once and is queued, up to
// MaxPending messages, to go to NATS in order once it is back; with the
// queue full, Publish answers an error and the message reaches no one.
// Other processes get the queued messages once NATS is back, and this
// process's subscribers do not get them a second time. With history, the
// notifications of such messages carry a position whose epoch is
// "local-" and this hub's id: a resume from it is answered "recovered":
// false, and a client resuming from a later position gets those messages
// again, with their positions in the stream. Once NATS is back, this
// process's subscribers get what other processes published meanwhile,
// read from the history, before what follows; without history those are
// lost, as core NATS delivers at most once.
type Hub struct {
	opts   Options
	log    *zap.Logger
	nc     *nats.Conn
	js     jetstream.JetStream // nil without history
	node   string              // this hub's part of every message id
	stream string
	m      *hubMetrics

	mu     sync.Mutex
	topics map[string]*topic
	closed atomic.Bool // set under mu

	publisher
	history streamState

	kick       chan struct{} // wakes the run loop
	done       chan struct{} // closed by Close
	loopDone   chan struct{}
	connClosed chan struct{}
	session    session     // ends when the connection is lost
	connected  atomic.Bool // as the gauge counts it
	epochCheck atomic.Bool // see checkEpochSoon
	closeOnce  sync.Once
}

// New connects to NATS and returns the hub. NATS need not be reachable:
// the hub keeps trying, and serves its own subscribers meanwhile.
func New(opts Options, log *zap.Logger) (*Hub, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	h := &Hub{
		opts:       opts,
		log:        log,
		node:       nuid.Next(),
		stream:     streamName(opts.SubjectPrefix),
		m:          metrics(),
		topics:     map[string]*topic{},
		kick:       make(chan struct{}, 1),
		done:       make(chan struct{}),
		loopDone:   make(chan struct{}),
		connClosed: make(chan struct{}),
	}
	h.session.begin()
	no := []nats.Option{
		nats.Name(opts.Name),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		// Publishes fail at once while disconnected, rather than wait in
		// the client's buffer: the hub queues them itself.
		nats.ReconnectBufSize(-1),
		nats.NoEcho(),
		nats.DrainTimeout(opts.PublishTimeout),
		nats.ConnectHandler(h.onConnect),
		nats.ReconnectHandler(h.onConnect),
		nats.DisconnectErrHandler(h.onDisconnect),
		nats.ClosedHandler(h.onClosed),
		nats.ErrorHandler(h.onAsyncError),
	}
	if opts.ReconnectWait > 0 {
		no = append(no, nats.ReconnectWait(opts.ReconnectWait))
	}
	nc, err := nats.Connect(strings.Join(opts.URLs, ","), append(no, opts.Connect...)...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS: %w", err)
	}
	h.nc = nc
	if opts.History != nil {
		if h.js, err = jetstream.New(nc); err != nil {
			nc.Close()
			return nil, err
		}
	}
	switch {
	case !nc.IsConnected():
		log.Warn("NATS is unreachable; the hub keeps trying, and meanwhile serves this process's subscribers alone",
			zap.Strings("urls", opts.URLs))
	case h.js != nil:
		// The first subscribers get positions from the start; the run loop
		// tries again if this fails.
		if err := h.ensureStream(); err != nil {
			log.Warn("could not make the hub's JetStream stream yet", zap.String("stream", h.stream), zap.Error(err))
		}
	}
	go h.run()
	h.wake()
	return h, nil
}

// Connected reports whether the hub is connected to NATS now.
func (h *Hub) Connected() bool { return h.nc.IsConnected() }

// KeepsHistory implements rpccore.HistoryHub.
func (h *Hub) KeepsHistory() bool { return h.js != nil }

// Close implements rpccore.Hub: it drains the NATS connection and closes
// it. Publishes still queued for NATS are lost, and logged.
func (h *Hub) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		h.closed.Store(true)
		h.topics = map[string]*topic{}
		h.mu.Unlock()
		close(h.done)
		<-h.loopDone
		if lost := h.dropQueue(); lost > 0 {
			h.log.Error("closing the hub with publishes NATS never got", zap.Int("messages", lost))
		}
		if h.nc.Drain() != nil {
			h.nc.Close()
			return
		}
		select {
		case <-h.connClosed:
		case <-time.After(h.opts.PublishTimeout + time.Second):
			h.nc.Close()
		}
	})
	return nil
}

// Destruct implements caddy.Destructor: a pool's last holder closes the hub.
func (h *Hub) Destruct() error { return h.Close() }

// wake makes the run loop look at the state of things.
func (h *Hub) wake() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

func (h *Hub) onConnect(nc *nats.Conn) {
	h.log.Info("connected to NATS", zap.String("url", nc.ConnectedUrlRedacted()))
	h.session.begin()
	if h.connected.CompareAndSwap(false, true) {
		h.m.connected.Inc()
	}
	h.wake()
}

func (h *Hub) onDisconnect(_ *nats.Conn, err error) {
	h.session.end()
	if h.closed.Load() {
		return
	}
	h.log.Warn("lost NATS; publishes reach this process's subscribers and wait for NATS", zap.Error(err))
	if h.connected.CompareAndSwap(true, false) {
		h.m.connected.Dec()
	}
	h.history.setEnsured(false)
}

func (h *Hub) onClosed(*nats.Conn) {
	h.session.end()
	if h.connected.CompareAndSwap(true, false) {
		h.m.connected.Dec()
	}
	close(h.connClosed)
}

func (h *Hub) onAsyncError(_ *nats.Conn, sub *nats.Subscription, err error) {
	if sub != nil {
		h.log.Error("NATS subscription", zap.String("subject", sub.Subject), zap.Error(err))
		return
	}
	h.log.Error("NATS", zap.Error(err))
}

// session is a context that ends when the NATS connection is lost, so
// that what waits for NATS stops waiting then: a publish in flight is
// queued to be sent again at once, not after publish_timeout.
type session struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
}

// begin starts a session, ending the one before.
func (s *session) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
}

// end ends the session.
func (s *session) end() {
	s.mu.Lock()
	s.cancel()
	s.mu.Unlock()
}

// wait returns a context for one wait for NATS, bounded by timeout and
// the session.
func (s *session) wait(timeout time.Duration) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return context.WithTimeout(s.ctx, timeout)
}

// within is wait, bounded by parent too.
func (s *session) within(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	sess := s.ctx
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(parent, timeout)
	stop := context.AfterFunc(sess, cancel)
	return ctx, func() { stop(); cancel() }
}

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
	if h.nc.IsConnected() {
		if err := h.flush(); err != nil && h.nc.IsConnected() {
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

var _ rpccore.HistoryHub = (*Hub)(nil)
