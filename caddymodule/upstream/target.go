package upstream

// target.go holds one upstream server: its client, dialled when first
// needed for WebSocket, and whether it is up.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
)

// target is one of the `to` servers.
type target struct {
	label   string // the URL without user information, for metrics and logs
	addr    string
	ws      bool
	opts    []rpcclient.Option
	metrics *targetMetrics
	logger  *zap.Logger

	mu     sync.Mutex // serialises dialling
	client atomic.Pointer[rpcclient.Client]
	closed bool // under mu

	// downUntil is when the server is up again, in Unix nanoseconds: 0
	// when it is up, math.MaxInt64 until a health check passes.
	downUntil atomic.Int64
	// lost is set while a WebSocket server's connection is lost and its
	// client redials.
	lost atomic.Bool
}

// targetOptions are the client options every server shares.
func (u *Upstream) targetOptions(tlsConfig *tls.Config) []rpcclient.Option {
	maxResponse := int(u.MaxResponse)
	if maxResponse == 0 {
		maxResponse = DefaultMaxResponse
	}
	opts := []rpcclient.Option{
		rpcclient.WithMaxMessage(maxResponse),
		rpcclient.WithFailFast(), // a call while a connection is down goes to the next server
		rpcclient.WithTLSConfig(tlsConfig),
		rpcclient.WithBackoff(100*time.Millisecond, 5*time.Second),
		rpcclient.WithHeaderFunc(injectTraceContext),
	}
	for name, values := range u.Header {
		for _, v := range values {
			opts = append(opts, rpcclient.WithHeader(name, v))
		}
	}
	return opts
}

// parseAddress checks a `to` URL.
func parseAddress(addr string) (*url.URL, error) {
	u, err := url.Parse(addr)
	if err != nil {
		// The error without the URL, which may hold a password.
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return nil, fmt.Errorf("a URL does not parse: %v", err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return nil, fmt.Errorf("%q: the scheme must be http, https, ws or wss", redact(addr))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%q: no host", redact(addr))
	}
	return u, nil
}

// redact returns addr without its user information (a password, say).
func redact(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || u.User == nil {
		return addr
	}
	u.User = nil
	return u.String()
}

// newTarget sets up the server at addr. An HTTP server's client is made
// now (it connects per request); a WebSocket server is dialled later.
func newTarget(addr string, opts []rpcclient.Option, tlsConfig *tls.Config, m *upstreamMetrics, logger *zap.Logger) (*target, error) {
	u, err := parseAddress(addr)
	if err != nil {
		return nil, err
	}
	t := &target{label: redact(addr), addr: addr, ws: u.Scheme == "ws" || u.Scheme == "wss", logger: logger}
	t.metrics = m.target(t.label)
	t.metrics.healthy.Set(1)
	t.opts = opts
	if t.ws {
		t.opts = append(append([]rpcclient.Option(nil), opts...), rpcclient.WithStateFunc(t.stateChanged))
	} else {
		t.opts = append(append([]rpcclient.Option(nil), opts...), rpcclient.WithHTTPClient(pooledClient(tlsConfig)))
		c, err := rpcclient.Dial(context.Background(), addr, t.opts...)
		if err != nil {
			return nil, fmt.Errorf("upstream to: %q: %w", t.label, err)
		}
		t.client.Store(c)
	}
	return t, nil
}

// pooledClient is the HTTP client of an HTTP server: keep-alive
// connections pooled, enough of them kept idle for calls that run at once.
func pooledClient(tlsConfig *tls.Config) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.TLSClientConfig = tlsConfig
	return &http.Client{Transport: tr}
}

// clientFor returns the server's client, dialling a WebSocket server that
// has none yet within ctx. A failed dial is the error. Calls that waited
// for another's dial do not dial a server that it marked down; a health
// check (probe) does.
func (t *target) clientFor(ctx context.Context, probe bool) (*rpcclient.Client, error) {
	if c := t.client.Load(); c != nil {
		return c, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.client.Load(); c != nil {
		return c, nil
	}
	if t.closed {
		return nil, rpcclient.ErrClientClosed
	}
	if !probe && t.isDown() {
		return nil, &dialError{err: errMarkedDown}
	}
	c, err := rpcclient.Dial(ctx, t.addr, t.opts...)
	if err != nil {
		return nil, &dialError{err: err}
	}
	t.client.Store(c)
	return c, nil
}

// errMarkedDown is why a server marked down is not dialled.
var errMarkedDown = errors.New("the server is marked down")

// dialError is a WebSocket server that could not be dialled: nothing was
// sent.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// close closes the server's client; no client is dialled after.
func (t *target) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	if c := t.client.Load(); c != nil {
		c.Close()
	}
}

// stateChanged hears of a WebSocket client's connection: the server is
// down while it is lost.
func (t *target) stateChanged(s rpcclient.State, cause error) {
	switch s {
	case rpcclient.Reconnecting:
		t.lost.Store(true)
		t.logger.Warn("upstream connection lost", zap.String("address", t.label), zap.Error(cause))
	case rpcclient.Connected:
		if t.lost.Swap(false) {
			t.logger.Info("upstream connection made again", zap.String("address", t.label))
		}
	}
	t.updateGauge()
}

// isDown reports whether the server is down now: marked down, or its
// WebSocket connection lost. A mark that has run out is cleared.
func (t *target) isDown() bool {
	if t.lost.Load() {
		return true
	}
	until := t.downUntil.Load()
	if until == 0 {
		return false
	}
	if time.Now().UnixNano() < until {
		return true
	}
	if t.downUntil.CompareAndSwap(until, 0) {
		t.updateGauge()
	}
	return false
}

// markDown marks the server down for d (until a health check passes when
// d is 0) because of cause. A longer mark already there stays.
func (t *target) markDown(d time.Duration, cause error) {
	now := time.Now().UnixNano()
	until := int64(math.MaxInt64)
	if d > 0 {
		until = now + int64(d)
	}
	for {
		old := t.downUntil.Load()
		if old >= until {
			return
		}
		if t.downUntil.CompareAndSwap(old, until) {
			t.updateGauge()
			if old == 0 || old <= now {
				t.logger.Warn("upstream down", zap.String("address", t.label), zap.Error(cause))
			}
			return
		}
	}
}

// markUp clears the server's mark after a health check passed.
func (t *target) markUp() {
	if old := t.downUntil.Swap(0); old != 0 {
		t.logger.Info("upstream up", zap.String("address", t.label))
	}
	t.updateGauge()
}

// updateGauge sets the health gauge: 1 while the server is neither
// marked down nor without its connection.
func (t *target) updateGauge() {
	until := t.downUntil.Load()
	if t.lost.Load() || until != 0 && time.Now().UnixNano() < until {
		t.metrics.healthy.Set(0)
		return
	}
	t.metrics.healthy.Set(1)
}
