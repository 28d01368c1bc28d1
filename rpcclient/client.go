package rpcclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/pending"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Client is a connection to a JSON-RPC 2.0 server. It is safe for
// concurrent use.
type Client struct {
	opts     options
	calls    *pending.Table  // every call the client awaits, across connections
	handlers *rpccore.Server // the methods the server may call
	http     *httpTransport  // set for http:// and https://; nil for connections

	// Connections (WebSocket and streams).
	dial    dialFunc
	queue   *sendQueue
	subs    subscriptionTable
	slots   chan struct{}  // bounds the server's calls running at once
	serving sync.WaitGroup // the server's calls running
	stateMu sync.Mutex
	state   State
	conns   atomic.Uint64 // connections made so far: the current one's number

	ctx       context.Context // ends when the client closes
	cancel    context.CancelFunc
	done      chan struct{} // closed once the client's goroutine has ended
	closeOnce sync.Once
}

// Dial connects to the server at rawURL: http:// or https:// (a POST per
// call or batch), ws:// or wss:// (WebSocket), tcp://host:port or
// tls://host:port (values back to back, as this module's stream
// listeners and go-ethereum's IPC speak), unix:///path or a bare path (a
// unix socket). Over connections, Dial makes the first one and fails when
// it cannot; later losses are redialled. ctx bounds the first dial only.
func Dial(ctx context.Context, rawURL string, opts ...Option) (*Client, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	u, err := parseTarget(rawURL)
	if err != nil {
		return nil, err
	}
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		c.http = newHTTPTransport(u, &c.opts, c.calls)
		close(c.done)
		return c, nil
	}
	if c.dial, err = dialerFor(u, &c.opts); err != nil {
		return nil, err
	}
	first, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	c.start(first)
	return c, nil
}

// newClient returns a client of options o, not yet connected.
func newClient(o options) (*Client, error) {
	handlers := rpccore.NewServer()
	if err := handlers.RegisterMethods(o.methods); err != nil {
		return nil, err
	}
	c := &Client{opts: o, calls: pending.NewSharded("", callShards), handlers: handlers, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// start serves the connection first and the ones that follow it.
func (c *Client) start(first messageConn) {
	c.queue = newSendQueue()
	c.subs.init()
	c.slots = make(chan struct{}, c.opts.maxServerCalls)
	c.calls.SetDeliverHook(c.delivered)
	c.conns.Add(1)
	go c.run(first)
}

// check refuses options that cannot work.
func (o *options) check() error {
	switch {
	case o.maxMessage <= 0:
		return errors.New("rpcclient: WithMaxMessage needs a positive size")
	case o.backoffMin <= 0 || o.backoffMax < o.backoffMin:
		return errors.New("rpcclient: WithBackoff needs 0 < min <= max")
	case o.maxResends < 0:
		return errors.New("rpcclient: WithMaxResends needs 0 or more")
	case o.maxServerCalls <= 0:
		return errors.New("rpcclient: WithMaxServerCalls needs 1 or more")
	case o.writeTimeout <= 0:
		return errors.New("rpcclient: WithWriteTimeout needs a positive duration")
	case o.batchWindow < 0, o.pingInterval < 0:
		return errors.New("rpcclient: durations must not be negative")
	}
	return nil
}

// callShards is how many locks the client's table of pending calls has:
// many callers open calls while the reader delivers answers.
const callShards = 16

// parseTarget parses what Dial was given; a bare path is a unix socket.
func parseTarget(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("rpcclient: no URL to dial")
	}
	if raw[0] == '/' || raw[0] == '.' {
		return &url.URL{Scheme: "unix", Path: raw}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("rpcclient: %w", err)
	}
	return u, nil
}

// Close ends the client: calls under way fail with ErrClientClosed,
// subscriptions end, the connection closes and the client's goroutines
// end before it returns. It may be called more than once.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.cancel()
		<-c.done
		c.calls.Close(ErrClientClosed)
		if c.http != nil {
			c.http.close()
		}
	})
}

// request is one call on its way: its entry in the table of pending
// calls, the message that carries it, and what a reconnect needs.
type request struct {
	call       *pending.Call
	method     string
	msg        []byte // the Request object, kept to be sent again
	seq        uint64 // its number in the send queue; 0 before it is queued
	sends      int    // how many times it was queued
	idempotent bool
	sub        *ClientSubscription // set for the calls that make a subscription
	async      *AsyncCall          // set for the calls made with Go
	remake     bool                // a subscription made again after a reconnect
}

var requestPool = sync.Pool{New: func() any { return new(request) }}

// open starts a call of method; sub is set for the calls that make a
// subscription (again, when remake). The request is complete before its
// call enters the table, where the reader and a lost connection's sweep
// read it.
func (c *Client) open(ctx context.Context, method string, sub *ClientSubscription, remake bool) (*request, error) {
	return c.openAgain(ctx, nil, method, sub, remake)
}

// openAgain is open with a request kept (keep) from an earlier call, or a
// new one when kept is nil.
func (c *Client) openAgain(ctx context.Context, kept *request, method string, sub *ClientSubscription, remake bool) (*request, error) {
	if err := c.refuseWhileDown(); err != nil {
		if kept != nil {
			c.release(kept)
		}
		return nil, err
	}
	r := kept
	if r == nil {
		r = requestPool.Get().(*request)
	}
	r.method, r.sub, r.remake = method, sub, remake
	// A first subscribe lost with its connection is sent again; one made
	// again after a reconnect is left to the next reconnect's remaking.
	r.idempotent = (sub != nil && !remake) || (sub == nil && c.opts.isIdempotent(ctx, method))
	pc, err := c.calls.OpenAgain(r.call, r, sub != nil) // a subscribe's answer binds its id (delivered)
	if err != nil {
		r.call, r.sub = nil, nil
		requestPool.Put(r)
		return nil, err
	}
	r.call = pc
	return r, nil
}

// release hands a finished call back. Its pending call stays with it, for
// the next call the pool hands it to (openAgain): one pool round trip per
// call instead of two.
func (c *Client) release(r *request) {
	r.call.Keep()
	r.reset()
	requestPool.Put(r)
}

// keep is release for a request whose owner opens its next call with it
// (openAgain), its pending call kept with it.
func (c *Client) keep(r *request) {
	r.call.Keep()
	r.reset()
}

// reset clears what a finished request holds but its pending call.
func (r *request) reset() {
	r.sub, r.async, r.seq, r.sends, r.remake = nil, nil, 0, 0, false
	if cap(r.msg) > maxKeptMessage {
		r.msg = nil
	}
}

// maxKeptMessage bounds the buffers kept for the next call or read.
const maxKeptMessage = 64 << 10

// send queues r's message; under WithFailFast, while the connection is
// lost, it fails r's call with ErrDisconnected instead.
func (c *Client) send(r *request) { c.queueMessage(r.msg, r) }

// queueMessage queues msg, the message of reqs (one request's, or a
// batch's), each numbered as sent in it; under WithFailFast, while the
// connection is lost, it fails their calls with ErrDisconnected instead.
func (c *Client) queueMessage(msg []byte, reqs ...*request) {
	c.queue.mu.Lock()
	if c.queue.refusing {
		for _, r := range reqs {
			c.calls.FailID(r.call.ID(), ErrDisconnected)
		}
	} else {
		seq := c.queue.pushLocked(msg)
		for _, r := range reqs {
			r.seq = seq
			r.sends++
		}
	}
	c.queue.mu.Unlock()
}

// await waits for r's answer and decodes it into result.
func (c *Client) await(ctx context.Context, r *request, result any) error {
	res, err := c.answer(ctx, r)
	if err != nil {
		return err
	}
	return decodeResult(res, result)
}

// answer waits for r's answer and returns its raw result (valid until r
// is released), or its error.
func (c *Client) answer(ctx context.Context, r *request) ([]byte, error) {
	res, errObj, err := r.call.Wait(ctx)
	if err != nil {
		if ctx.Err() != nil {
			c.queue.cancel(r.seq)
		}
		return nil, err
	}
	if err := answerError(res, errObj); err != nil {
		return nil, err
	}
	return res, nil
}

// Call calls method with args and decodes the result into result (a
// pointer; nil drops it). Args are sent as the params array; one Named or
// ByName argument sends them by name. An error answer is returned as an
// *rpccore.Error. It waits until the answer comes or ctx ends.
func (c *Client) Call(ctx context.Context, result any, method string, args ...any) error {
	if c.http != nil {
		return c.http.call(ctx, result, method, args)
	}
	r, res, err := c.roundTrip(ctx, method, args)
	if err == nil {
		err = decodeResult(res, result)
	}
	if r != nil {
		c.release(r)
	}
	return err
}

// roundTrip sends a call and waits for its answer, returning its raw
// result. The request, when not nil, is released by the caller once the
// result is decoded.
func (c *Client) roundTrip(ctx context.Context, method string, args []any) (*request, []byte, error) {
	r, err := c.open(ctx, method, nil, false)
	if err != nil {
		return nil, nil, err
	}
	if r.msg, err = appendRequest(r.msg[:0], method, r.call.ID(), args); err != nil {
		return r, nil, err
	}
	c.send(r)
	res, err := c.answer(ctx, r)
	return r, res, err
}

// CallT calls method with args and returns its result as a T. A T that
// holds no pointers is decoded without an allocation.
func CallT[T any](ctx context.Context, c *Client, method string, args ...any) (T, error) {
	if c.http != nil {
		return callHTTP[T](ctx, c.http, method, args)
	}
	var result T
	r, res, err := c.roundTrip(ctx, method, args)
	if err == nil {
		err = decodeTyped(res, &result)
	}
	if r != nil {
		c.release(r)
	}
	return result, err
}

// callHTTP is CallT over HTTP, apart so that CallT's result stays on the
// stack.
func callHTTP[T any](ctx context.Context, t *httpTransport, method string, args []any) (T, error) {
	var result T
	err := t.call(ctx, &result, method, args)
	return result, err
}

// Notify sends a notification of method with args: a call without an
// answer. Over connections it returns once the notification is queued
// (while the connection is down it is sent on the next one; under
// WithFailFast it fails with ErrDisconnected instead); over HTTP once the
// server took it.
func (c *Client) Notify(ctx context.Context, method string, args ...any) error {
	msg, err := appendRequest(nil, method, nil, args)
	if err != nil {
		return err
	}
	if c.http != nil {
		return c.http.notify(ctx, msg)
	}
	if c.ctx.Err() != nil {
		return ErrClientClosed
	}
	if err := c.refuseWhileDown(); err != nil {
		return err
	}
	c.queue.push(msg)
	return nil
}

// refuseWhileDown is WithFailFast's check: an error while the connection
// is down, nil otherwise or without the option (then it costs no lock).
// Between Dial and the client's goroutine recording its first state (0),
// the first connection is up.
func (c *Client) refuseWhileDown() error {
	if !c.opts.failFast {
		return nil
	}
	switch s := c.State(); {
	case s == Connected || s == 0:
		return nil
	case c.ctx.Err() != nil:
		return ErrClientClosed
	}
	return ErrDisconnected
}

// State returns where the client's connection stands (Connected for
// HTTP until Close).
func (c *Client) State() State {
	if c.http != nil {
		if c.ctx.Err() != nil {
			return Closed
		}
		return Connected
	}
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	return c.state
}

// setState records and reports a change of state.
func (c *Client) setState(s State, cause error) {
	c.stateMu.Lock()
	changed := c.state != s
	c.state = s
	c.stateMu.Unlock()
	if changed && c.opts.stateFunc != nil {
		c.opts.stateFunc(s, cause)
	}
}
