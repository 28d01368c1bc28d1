package rpcclient

import (
	"context"
	"crypto/tls"
	"net/http"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Defaults of the client's options.
const (
	DefaultBackoffMin         = 100 * time.Millisecond // first wait before a redial
	DefaultBackoffMax         = 10 * time.Second       // longest wait between redials
	DefaultMaxResends         = 3                      // sends of one idempotent call across reconnects
	DefaultSubscriptionBuffer = 20000                  // notifications a subscription holds for a slow reader
	DefaultMaxMessage         = rpccore.DefaultMaxResponseBytes
	DefaultMaxServerCalls     = rpccore.DefaultMaxInFlight // calls from the server running at once
)

// Option configures Dial.
type Option func(*options)

// options is what Dial was told.
type options struct {
	tlsConfig      *tls.Config
	httpClient     *http.Client
	header         http.Header
	headerFunc     func(ctx context.Context, h http.Header)
	maxMessage     int
	backoffMin     time.Duration
	backoffMax     time.Duration
	failFast       bool
	maxResends     int
	idempotent     map[string]bool
	methods        rpccore.Methods
	stateFunc      func(State, error)
	resubscribe    ResubscribeFunc
	batchWindow    time.Duration
	maxServerCalls int
	writeTimeout   time.Duration
	pingInterval   time.Duration
}

func defaultOptions() options {
	return options{
		header:         http.Header{},
		maxMessage:     DefaultMaxMessage,
		backoffMin:     DefaultBackoffMin,
		backoffMax:     DefaultBackoffMax,
		maxResends:     DefaultMaxResends,
		maxServerCalls: DefaultMaxServerCalls,
		writeTimeout:   rpccore.DefaultWriteTimeout,
		pingInterval:   rpccore.DefaultPingInterval,
	}
}

// WithTLSConfig sets the TLS configuration of https://, wss:// and tls://
// connections.
func WithTLSConfig(c *tls.Config) Option { return func(o *options) { o.tlsConfig = c } }

// WithHTTPClient sets the HTTP client of http:// and https:// URLs.
// Default: a client of its own, with WithTLSConfig's configuration.
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithHeader adds a header to every HTTP request and to the WebSocket
// handshake.
func WithHeader(key, value string) Option { return func(o *options) { o.header.Add(key, value) } }

// WithHeaderFunc has f add headers that depend on the context (a trace
// context, say): f is called with the headers of each HTTP request, after
// WithHeader's, and the context of the call or batch it sends, and with
// those of each WebSocket handshake and the context of its dial: Dial's
// for the first connection, for a redial one that holds no call's values.
func WithHeaderFunc(f func(ctx context.Context, h http.Header)) Option {
	return func(o *options) { o.headerFunc = f }
}

// WithMaxMessage bounds an incoming message (an answer, a batch of them, a
// notification) in bytes. Default DefaultMaxMessage (25 MiB).
func WithMaxMessage(n int) Option { return func(o *options) { o.maxMessage = n } }

// WithBackoff sets the waits between redials: the first is about min, each
// next one twice the last, at most max. Each wait is drawn at random
// between half and all of its value (jitter), so that clients that lost
// the same server do not come back at once. Defaults DefaultBackoffMin
// and DefaultBackoffMax.
func WithBackoff(min, max time.Duration) Option {
	return func(o *options) { o.backoffMin, o.backoffMax = min, max }
}

// WithFailFast makes calls made while the connection is down, and those
// not yet written when it is lost, fail at once with ErrDisconnected
// instead of waiting for the next connection.
func WithFailFast() Option { return func(o *options) { o.failFast = true } }

// WithMaxResends bounds how many times one idempotent call is sent across
// reconnects. Default DefaultMaxResends.
func WithMaxResends(n int) Option { return func(o *options) { o.maxResends = n } }

// WithIdempotentMethods marks calls of these methods idempotent: one sent
// on a connection lost before its answer came is sent again on the next.
func WithIdempotentMethods(names ...string) Option {
	return func(o *options) {
		if o.idempotent == nil {
			o.idempotent = map[string]bool{}
		}
		for _, n := range names {
			o.idempotent[n] = true
		}
	}
}

// WithMethods registers the methods the server may call, or notify, on
// the client (WebSocket and streams).
func WithMethods(ms rpccore.Methods) Option { return func(o *options) { o.methods = ms } }

// WithStateFunc sets f, called with each change of the client's state and
// its cause (the error that dropped the connection; nil otherwise). It is
// called on the client's own goroutine, in order; it must not block.
func WithStateFunc(f func(State, error)) Option { return func(o *options) { o.stateFunc = f } }

// WithResubscribe sets f, called before a subscription is made again after
// a reconnect, to choose its arguments. Default: the arguments it was made
// with. The client still resumes from the last position it knows (see
// ResubscribeFunc).
func WithResubscribe(f ResubscribeFunc) Option { return func(o *options) { o.resubscribe = f } }

// WithHTTPBatchWindow makes calls over HTTP that are made within d of each
// other leave together as one batch POST. Default 0: one POST a call.
func WithHTTPBatchWindow(d time.Duration) Option { return func(o *options) { o.batchWindow = d } }

// WithMaxServerCalls bounds the calls from the server that run at once;
// reading waits while it is reached. Default DefaultMaxServerCalls.
func WithMaxServerCalls(n int) Option { return func(o *options) { o.maxServerCalls = n } }

// WithWriteTimeout bounds one network write. Default
// rpccore.DefaultWriteTimeout.
func WithWriteTimeout(d time.Duration) Option { return func(o *options) { o.writeTimeout = d } }

// WithPingInterval sets how often a WebSocket connection is checked: when
// nothing came from the server since the last check, it is pinged, and
// dropped (then redialled) when nothing has come by the next. 0 sends no
// pings. Default rpccore.DefaultPingInterval (30s). Streams rely on TCP
// keep-alive, which Go turns on for every dialled connection.
func WithPingInterval(d time.Duration) Option { return func(o *options) { o.pingInterval = d } }

type idempotentKey struct{}

// Idempotent returns a context whose calls are idempotent: one sent on a
// connection lost before its answer came is sent again on the next,
// instead of failing with ErrOutcomeUnknown.
func Idempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// isIdempotent reports whether a call of method under ctx may be resent.
func (o *options) isIdempotent(ctx context.Context, method string) bool {
	if o.idempotent[method] {
		return true
	}
	v, _ := ctx.Value(idempotentKey{}).(bool)
	return v
}

// State is where the client's connection stands.
type State int

// The client's states.
const (
	// Connected: the connection is up.
	Connected State = iota + 1
	// Reconnecting: the connection was lost; the client is redialling.
	Reconnecting
	// Closed: Close was called; the client is done.
	Closed
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case Connected:
		return "connected"
	case Reconnecting:
		return "reconnecting"
	case Closed:
		return "closed"
	}
	return "unknown"
}
