package natshub

import (
	"errors"
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
// With history, Publish returns once the hub holds the message: a send
// loop sends the queue to the stream, up to 256 messages at a time
// without waiting for each acknowledgement, and sends again, in order and
// under the same message ids, what NATS did not acknowledge (the stream
// stores a message sent twice once, within its two-minute duplicate
// window). Every message reaches this process's subscribers too through
// NATS, with its position in the stream. At most max_pending messages
// wait for an acknowledgement; a publish finding them all taken waits up
// to publish_timeout for room, then fails.
//
// While NATS is lost for less than publish_timeout (a client failing over
// to another server of a cluster takes milliseconds), publishes wait in
// the queue. While it is unreachable for longer, or was never reached, a
// publish reaches this process's own subscribers at once and waits, up
// to max_pending messages, to go to NATS in order once it is back; with
// the queue full, Publish answers an error and the message reaches no
// one. Other processes get the queued messages once NATS is back, and
// this process's subscribers do not get them a second time. With
// history, the notifications of such messages carry a position whose
// epoch is "local-" and this hub's id: a resume from it is answered
// "recovered": false, and a client resuming from a later position gets
// those messages again, with their positions in the stream. Once NATS is
// back, this process's subscribers get what other processes published
// meanwhile, read from the history, before what follows; without history
// those are lost, as core NATS delivers at most once.
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
	sendKick   chan struct{} // wakes the send loop
	ready      chan struct{} // tells the send loop that NATS takes publishes again
	done       chan struct{} // closed by Close
	loopDone   chan struct{}
	sendDone   chan struct{}
	slots      chan struct{} // one per queued message: max_pending in all
	connClosed chan struct{}
	session    session      // ends when the connection is lost
	connected  atomic.Bool  // as the gauge counts it
	epochCheck atomic.Bool  // see checkEpochSoon
	lostAt     atomic.Int64 // when the connection was last lost, in Unix nanoseconds; 0 before the first
	server     string       // the NATS server connected to, as the metric names it; under serverMu
	serverMu   sync.Mutex
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
		sendKick:   make(chan struct{}, 1),
		ready:      make(chan struct{}, 1),
		done:       make(chan struct{}),
		loopDone:   make(chan struct{}),
		sendDone:   make(chan struct{}),
		slots:      make(chan struct{}, opts.MaxPending),
		connClosed: make(chan struct{}),
	}
	h.window = maxUnacked
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
		if h.js, err = jetstream.New(nc, jetstream.WithPublishAsyncTimeout(opts.PublishTimeout),
			jetstream.WithPublishAsyncMaxPending(2*maxUnacked)); err != nil {
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
		// tries again if this fails, unless NATS refused the configuration.
		if err := h.ensureStream(); err != nil {
			if _, refused := errors.AsType[*StreamRefusedError](err); refused {
				nc.Close()
				return nil, err
			}
			log.Warn("could not make the hub's JetStream stream yet", zap.String("stream", h.stream), zap.Error(err))
		}
	}
	go h.run()
	go h.sendLoop()
	h.wake()
	return h, nil
}

// Connected reports whether the hub is connected to NATS now.
func (h *Hub) Connected() bool { return h.nc.IsConnected() }

// KeepsHistory implements rpccore.HistoryHub.
func (h *Hub) KeepsHistory() bool { return h.js != nil }

// Close implements rpccore.Hub: it waits up to publish_timeout for the
// publishes still queued while NATS takes them, then drains the NATS
// connection and closes it. Publishes still queued then are lost, and
// logged.
func (h *Hub) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		h.closed.Store(true)
		h.topics = map[string]*topic{}
		h.mu.Unlock()
		h.awaitQueue(h.opts.PublishTimeout)
		close(h.done)
		<-h.loopDone
		<-h.sendDone
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

// awaitQueue waits until the queue is empty, at most d, while NATS takes
// publishes.
func (h *Hub) awaitQueue(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && h.up() {
		h.pubMu.Lock()
		n := len(h.queue)
		h.pubMu.Unlock()
		if n == 0 {
			return
		}
		h.wakeSender()
		time.Sleep(5 * time.Millisecond)
	}
}

// wake makes the run loop look at the state of things.
func (h *Hub) wake() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

var _ rpccore.HistoryHub = (*Hub)(nil)
