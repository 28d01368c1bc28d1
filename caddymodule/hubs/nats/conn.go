package natshub

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"
)

func (h *Hub) onConnect(nc *nats.Conn) {
	server := nc.ConnectedServerName()
	h.log.Info("connected to NATS", zap.String("url", nc.ConnectedUrlRedacted()), zap.String("server", server),
		zap.String("cluster", nc.ConnectedClusterName()))
	h.session.begin()
	if h.connected.CompareAndSwap(false, true) {
		h.m.connected.Inc()
	}
	h.onServer(server)
	h.wake()
	h.readyAgain()
}

func (h *Hub) onDisconnect(_ *nats.Conn, err error) {
	h.session.end()
	h.lostAt.Store(time.Now().UnixNano())
	if h.closed.Load() {
		return
	}
	if h.js != nil {
		h.log.Warn("lost NATS; publishes wait for it, and reach this process's subscribers alone if it is not back within publish_timeout",
			zap.Error(err), zap.Duration("publish_timeout", h.opts.PublishTimeout))
		// The run loop looks again once that time is up.
		time.AfterFunc(h.opts.PublishTimeout, h.wake)
	} else {
		h.log.Warn("lost NATS; publishes reach this process's subscribers and wait for NATS", zap.Error(err))
	}
	if h.connected.CompareAndSwap(true, false) {
		h.m.connected.Dec()
	}
	h.onServer("")
	h.history.setEnsured(false)
}

func (h *Hub) onClosed(*nats.Conn) {
	h.session.end()
	if h.connected.CompareAndSwap(true, false) {
		h.m.connected.Dec()
	}
	h.onServer("")
	close(h.connClosed)
}

// onServer moves the hub's count in the server gauge to the server it is
// connected to now ("" for none).
func (h *Hub) onServer(server string) {
	h.serverMu.Lock()
	defer h.serverMu.Unlock()
	if h.server == server {
		return
	}
	if h.server != "" {
		h.m.servers.WithLabelValues(h.server).Dec()
	}
	if h.server = server; server != "" {
		h.m.servers.WithLabelValues(server).Inc()
	}
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

// begin starts a session unless one is under way. New begins the first
// before it connects, and the first connect's handler, which the NATS
// client runs later on a goroutine of its own, keeps it: ending it would
// cut short what New and the first subscriptions wait for on that same
// connection. A lost connection ends its session (end), so every connect
// after a loss begins a new one.
func (s *session) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx != nil && s.ctx.Err() == nil {
		return
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
