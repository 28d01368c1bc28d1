package streamapp

// streamserver.go runs one stream listener: it listens on the addresses
// through Caddy's listener pool, accepts connections up to the limit and
// serves each with an rpccore peer until the app stops.

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/endpoint"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// streamServer is a provisioned StreamListener.
type streamServer struct {
	cfg      *StreamListener
	addrs    []caddy.NetworkAddress
	endpoint *endpoint.Endpoint
	tls      *streamTLS
	opts     streamconn.Options
	peer     rpccore.PeerConfig
	max      int64
	metrics  *streamMetrics
	logger   *zap.Logger

	ctx    context.Context // ends when the app stops: connections drain and close
	cancel context.CancelFunc

	mu        sync.Mutex
	listeners []net.Listener
	open      atomic.Int64
	wg        sync.WaitGroup // accept loops and connections
}

// newStreamServer provisions l.
func newStreamServer(ctx caddy.Context, l *StreamListener, grace time.Duration, logger *zap.Logger) (*streamServer, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	s := &streamServer{cfg: l, logger: logger.With(zap.String("listener", l.name())), metrics: newStreamMetrics(l.name())}
	for _, a := range l.Listen {
		na, err := caddy.ParseNetworkAddress(a)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc listen %s: %w", a, err)
		}
		s.addrs = append(s.addrs, na.Expand()...)
	}
	e, err := endpoint.Provision(ctx, l, l.endpointOptions(), s.metrics, &s.logger)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc listen %s: %w", l.name(), err)
	}
	s.endpoint = e
	framing, _ := streamconn.ParseFraming(l.Framing)
	s.opts = streamconn.Options{Framing: framing, MaxMessage: int(e.MaxBody), IdleTimeout: time.Duration(l.IdleTimeout)}
	s.peer = rpccore.PeerConfig{
		MaxInFlight:      l.MaxInFlight,
		SendQueue:        l.SendQueue,
		SlowConsumer:     endpoint.SlowConsumerPolicies[l.SlowConsumer],
		MaxSubscriptions: l.MaxSubscriptions,
		ShutdownGrace:    cmp.Or(grace, rpccore.DefaultShutdownGrace),
	}
	s.max = int64(l.MaxConnections)
	if s.max == 0 {
		s.max = rpccore.DefaultMaxConnections
	}
	if l.TLS != nil {
		if s.tls, err = l.TLS.provision(ctx, s.addrs[0].Host); err != nil {
			e.Release()
			return nil, err
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// start listens on every address and starts accepting.
func (s *streamServer) start() error {
	if s.tls != nil {
		if err := s.tls.manage(); err != nil {
			return fmt.Errorf("jsonrpc listen %s: tls: %w", s.cfg.name(), err)
		}
	}
	for _, na := range s.addrs {
		if err := checkFree(na); err != nil {
			s.stop()
			return err
		}
		ln, err := na.Listen(s.ctx, 0, net.ListenConfig{})
		if err != nil {
			s.stop()
			return fmt.Errorf("jsonrpc listen %s: %w", na, err)
		}
		nl, ok := ln.(net.Listener)
		if !ok {
			s.stop()
			return fmt.Errorf("jsonrpc listen %s: not a stream listener", na)
		}
		s.mu.Lock()
		s.listeners = append(s.listeners, nl)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.accept(nl)
		s.logger.Info("serving JSON-RPC streams", zap.String("address", na.String()))
	}
	return nil
}

// checkFree fails for a TCP address that another process listens on.
// Caddy's listeners set SO_REUSEPORT, which would let a second Caddy bind
// the same port and quietly share its connections; an address this
// process does not hold yet is first tried without it.
func checkFree(na caddy.NetworkAddress) error {
	if na.IsUnixNetwork() || caddy.ListenerUsage(na.Network, na.JoinHostPort(0)) > 0 {
		return nil
	}
	probe, err := net.Listen(na.Network, na.JoinHostPort(0))
	if err != nil {
		return fmt.Errorf("jsonrpc listen %s: the address is in use (by another process?): %w", na, err)
	}
	return probe.Close()
}

// accept accepts connections until the listener closes.
func (s *streamServer) accept(ln net.Listener) {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// A passing failure (too many open files, say): wait a little.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logger.Warn("accepting a connection failed", zap.Error(err), zap.Duration("retry_in", backoff))
			select {
			case <-time.After(backoff):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		backoff = 0
		if s.open.Add(1) > s.max {
			s.open.Add(-1)
			s.refuse(nc)
			continue
		}
		s.wg.Add(1)
		// The connection's span starts here, on the accepting goroutine:
		// a tracer's work deepens the stack it runs on, and the
		// connection's goroutine keeps its stack while it is open.
		remote := nc.RemoteAddr().String()
		ctx, span := rpctrace.StartConnection(s.ctx, otel.GetTracerProvider(), nc.LocalAddr().Network(), remote)
		go s.serve(ctx, span, nc, remote)
	}
}

// tooManyConnections answers a connection over the limit before it closes.
var tooManyConnections = []byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"too many connections"},"id":null}` + "\n")

// refuse answers and closes a connection over the limit.
func (s *streamServer) refuse(nc net.Conn) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if s.tls != nil {
			nc = tls.Server(nc, s.tls.config)
		}
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = nc.Write(tooManyConnections)
		_ = nc.Close()
	}()
}

// serve serves one connection until it ends, under ctx, which holds its
// span: a span per connection from the global tracer provider, the parent
// of its calls' spans (one that records nothing when none is set).
func (s *streamServer) serve(ctx context.Context, span trace.Span, nc net.Conn, remote string) {
	defer func() {
		span.End()
		s.metrics.connections.Dec()
		s.open.Add(-1)
		s.wg.Done()
	}()
	s.metrics.connections.Inc()
	if s.tls != nil {
		nc = tls.Server(nc, s.tls.config)
	}
	cfg := s.peer
	cfg.Info = &rpccore.RequestInfo{Transport: "stream", RemoteAddr: remote}
	if p := s.endpoint.Policy; p != nil {
		ctx = policy.BindConnection(ctx, p, policy.StreamReplacer(remote))
		defer policy.ReleaseConnection(ctx)
	}
	err := streamconn.New(nc, nil, s.opts).Serve(ctx, s.endpoint.Server, cfg)
	if err != nil && s.ctx.Err() == nil {
		s.logger.Debug("stream connection ended", zap.Error(err), zap.String("remote_addr", remote))
	}
}

// stop closes the listeners (a pooled listener stays open while a newer
// configuration uses its address), ends every connection once its
// computed answers are written, and waits for them.
func (s *streamServer) stop() error {
	s.cancel()
	s.mu.Lock()
	var errs []error
	for _, ln := range s.listeners {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	s.listeners = nil
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3*s.peer.ShutdownGrace + time.Second): // the grace, reading until the client is quiet, writing
		s.logger.Warn("stream connections still open after the shutdown grace")
	}
	return errors.Join(errs...)
}
