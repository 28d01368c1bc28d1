package rpcclient

// subscription.go holds subscriptions in go-ethereum's convention
// (<ns>_subscribe, <ns>_subscription notifications, <ns>_unsubscribe),
// made again on every new connection, resuming where the server gives
// positions (resume.go, subform.go).

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// ResubscribeFunc chooses the params a subscription is made again with
// after a reconnect: params is the params array it was made with, last the
// params object of the last notification it received (nil when none),
// which holds the notification's position where the server gives one. It
// returns the params array to send. The client sends them as it sends
// Subscribe's: in the object form where the server takes it, with the
// last position as "resume" when it knows one, so a hook that only
// changes the arguments keeps the automatic resume, and Gap still fires
// only when the server could not recover.
type ResubscribeFunc func(namespace string, params, last rpccore.RawJSON) rpccore.RawJSON

// errRemadeLater ends a call that was making a subscription again when
// its connection was lost: the next connection makes it again.
var errRemadeLater = errors.New("rpcclient: the subscription is made again on the next connection")

// ClientSubscription is a subscription made with Subscribe. Its
// notifications are decoded into the element type of the channel given to
// Subscribe and sent on it, in order.
type ClientSubscription struct {
	client    *Client
	namespace string
	params    []byte // the params array it was made with
	channel   reflect.Value
	elem      reflect.Type

	mu      sync.Mutex
	id      string   // the server's id (raw JSON) on this connection; "" while none
	boundTo uint64   // the connection (Client.conns) id was answered on
	queue   [][]byte // results not yet sent on the channel
	last    []byte   // params of the last notification, kept for WithResubscribe
	pos     position // of the last notification, where the server gives one
	resumed bool     // the last subscribe call recovered every missed notification
	wake    chan struct{}
	quit    chan struct{} // closed when the subscription ends
	errc    chan error
	gap     chan struct{}
	endOnce sync.Once
	done    chan struct{} // closed when forward has returned
}

// Subscribe calls <namespace>_subscribe with args (the first is usually
// the subscription's name, as "newHeads") and sends its notifications, as
// values of channel's element type, on channel, which must be a channel
// the client can send on. The subscription lasts until Unsubscribe, an
// error (on Err), or Close; across reconnects it is made again (see Gap).
// A subscription whose channel is not read for DefaultSubscriptionBuffer
// notifications ends with ErrSubscriptionQueueOverflow.
//
// When the first arg is a string (the name), the call's params take the
// object form {"name": ..., "args": [...]}, which this module's server
// answers with the position its notifications go on from, so that a
// reconnect can resume. A server that answers it with an error (as
// go-ethereum's does) is asked again in the positional form
// [name, args...], and that namespace's later subscriptions go
// positional at once: one extra round trip, once per client and
// namespace.
func (c *Client) Subscribe(ctx context.Context, namespace string, channel any, args ...any) (*ClientSubscription, error) {
	if c.http != nil {
		return nil, ErrNotificationsUnsupported
	}
	ch := reflect.ValueOf(channel)
	if ch.Kind() != reflect.Chan || ch.Type().ChanDir()&reflect.SendDir == 0 {
		return nil, fmt.Errorf("rpcclient: Subscribe needs a channel to send on, not %T", channel)
	}
	params := []byte("[]")
	if len(args) > 0 {
		var err error
		if params, err = appendParams(nil, args); err != nil {
			return nil, err
		}
	}
	s := &ClientSubscription{
		client:    c,
		namespace: namespace,
		params:    params,
		channel:   ch,
		elem:      ch.Type().Elem(),
		wake:      make(chan struct{}, 1),
		quit:      make(chan struct{}),
		errc:      make(chan error, 1),
		gap:       make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	if err := c.subscribe(ctx, s, params, false); err != nil {
		return nil, err
	}
	if !c.subs.add(s) {
		s.client.subs.unbind(s)
		return nil, ErrClientClosed
	}
	go s.forward()
	if s.boundOn() != c.conns.Load() {
		// Answered on a connection lost before s was live: the reconnect
		// did not make it again.
		c.subs.remake(c, s)
	}
	return s, nil
}

// subscribeWith makes s on the server with params, in the form they
// are, and binds its id; again says that s is live and being made again
// after a reconnect.
func (c *Client) subscribeWith(ctx context.Context, s *ClientSubscription, params []byte, again bool) error {
	r, err := c.open(ctx, s.namespace+"_subscribe", s, again)
	if err != nil {
		return err
	}
	defer c.release(r)
	r.msg = appendRequestParams(r.msg[:0], r.method, r.call.ID(), params)
	c.send(r)
	if err := c.await(ctx, r, nil); err != nil {
		return err
	}
	if s.serverID() == "" {
		return fmt.Errorf("%w: %s did not answer a subscription id", ErrBadAnswer, r.method)
	}
	return nil
}

// boundOn returns the connection s's id was answered on.
func (s *ClientSubscription) boundOn() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.boundTo
}

// serverID returns s's id on the current connection.
func (s *ClientSubscription) serverID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Err returns a channel that receives the error that ended the
// subscription (the client closed, it could not be made again after a
// reconnect, its queue overflowed), and is closed when it ends, by
// Unsubscribe too. Only one value is ever sent.
func (s *ClientSubscription) Err() <-chan error { return s.errc }

// Gap returns a channel that receives a value each time the subscription
// was made again on a new connection and notifications sent while the
// connection was down may have been lost. When the server gives positions
// and could resume from the last one the client received, nothing was
// lost and no value is sent: the missed notifications arrive on the
// channel, in order, before the live ones. Values do not pile up: one
// waiting stands for any number of gaps.
func (s *ClientSubscription) Gap() <-chan struct{} { return s.gap }

// recovered reports whether the last subscribe call resumed s with every
// notification it missed.
func (s *ClientSubscription) recovered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resumed
}

// unsubscribeTimeout bounds Unsubscribe's call to the server.
const unsubscribeTimeout = 5 * time.Second

// Unsubscribe ends the subscription: no notification is sent on its
// channel after it returns, Err's channel is closed, and the server is
// asked to end it (waiting at most 5 seconds). It may be called more than
// once.
func (s *ClientSubscription) Unsubscribe() {
	id := s.serverID()
	if !s.end(nil) {
		return
	}
	<-s.done
	c := s.client
	if id != "" && c.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(c.ctx, unsubscribeTimeout)
		defer cancel()
		_ = c.Call(ctx, nil, s.namespace+"_unsubscribe", rpccore.RawJSON(id))
	}
}

// end ends s with err (nil for Unsubscribe) and waits for its forwarding
// to stop, unless that is the caller. It reports whether s was live.
func (s *ClientSubscription) end(err error) bool {
	ended := false
	s.endOnce.Do(func() {
		ended = true
		s.client.subs.remove(s)
		close(s.quit)
		if err != nil {
			s.errc <- err
		}
		close(s.errc)
	})
	return ended
}

// push queues a notification's result (and its params, for
// WithResubscribe), copied; pos is its raw position, nil when it has
// none. A notification whose position is not after the last one's is
// one delivered already, and is dropped.
func (s *ClientSubscription) push(result, params, pos []byte) {
	s.mu.Lock()
	if pos != nil && !s.pos.advance(pos) {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= DefaultSubscriptionBuffer {
		s.mu.Unlock()
		go s.overflowed()
		return
	}
	s.queue = append(s.queue, append([]byte(nil), result...))
	if s.client.opts.resubscribe != nil {
		s.last = append(s.last[:0], params...)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// overflowed ends s for a reader too slow, and ends it on the server.
func (s *ClientSubscription) overflowed() {
	id := s.serverID()
	if s.end(ErrSubscriptionQueueOverflow) && id != "" {
		_ = s.client.Notify(s.client.ctx, s.namespace+"_unsubscribe", rpccore.RawJSON(id))
	}
}

// forward sends queued notifications on the channel until s ends.
func (s *ClientSubscription) forward() {
	defer close(s.done)
	cases := []reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s.quit)},
		{Dir: reflect.SelectSend, Chan: s.channel},
	}
	var batch [][]byte
	for {
		select {
		case <-s.quit:
			return
		case <-s.wake:
		}
		s.mu.Lock()
		batch, s.queue = s.queue, batch[:0]
		s.mu.Unlock()
		for i, raw := range batch {
			v := reflect.New(s.elem)
			if err := decodeResult(raw, v.Interface()); err != nil {
				s.end(err)
				return
			}
			cases[1].Send = v.Elem()
			if chosen, _, _ := reflect.Select(cases); chosen == 0 {
				return
			}
			batch[i] = nil
		}
	}
}

// subscriptionTable holds a client's live subscriptions and their ids on
// the current connection.
type subscriptionTable struct {
	mu     sync.Mutex
	byID   map[string]*ClientSubscription
	live   map[*ClientSubscription]struct{}
	forms  map[string]subscribeForm // by namespace
	closed bool
}

func (t *subscriptionTable) init() {
	t.byID = map[string]*ClientSubscription{}
	t.live = map[*ClientSubscription]struct{}{}
	t.forms = map[string]subscribeForm{}
}

// bind records the server's id for s on connection conn, from result,
// the raw result of its subscribe call: the id (a string or a number), or
// the object form's answer, whose position becomes s's last and whose
// "recovered" says whether a resume missed nothing.
func (t *subscriptionTable) bind(s *ClientSubscription, result []byte, conn uint64) {
	rawID, pos, recovered := readSubscribeAnswer(result)
	if len(rawID) == 0 || (rawID[0] != '"' && !isNumber(rawID)) {
		return
	}
	id := string(rawID)
	t.mu.Lock()
	t.byID[id] = s
	t.mu.Unlock()
	s.mu.Lock()
	s.id, s.boundTo, s.resumed = id, conn, recovered
	s.pos.reset(pos)
	s.mu.Unlock()
}

// unbind forgets s's id on the current connection.
func (t *subscriptionTable) unbind(s *ClientSubscription) {
	s.mu.Lock()
	id := s.id
	s.id = ""
	s.mu.Unlock()
	t.mu.Lock()
	if t.byID[id] == s {
		delete(t.byID, id)
	}
	t.mu.Unlock()
}

// add makes s live, unless the client closed.
func (t *subscriptionTable) add(s *ClientSubscription) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.live[s] = struct{}{}
	return true
}

// remove forgets s.
func (t *subscriptionTable) remove(s *ClientSubscription) {
	t.unbind(s)
	t.mu.Lock()
	delete(t.live, s)
	t.mu.Unlock()
}

// notify hands a notification's params to its subscription, and reports
// false when no subscription has its id.
func (t *subscriptionTable) notify(params []byte) bool {
	var id, result, pos []byte
	jsontext.EachMember(params, func(name, val []byte) bool {
		switch string(name) {
		case "subscription":
			id = val
		case "result":
			result = val
		case "position":
			pos = val
		}
		return true
	})
	if id == nil || result == nil {
		return false
	}
	t.mu.Lock()
	s := t.byID[string(id)]
	t.mu.Unlock()
	if s == nil {
		return false
	}
	s.push(result, params, pos)
	return true
}

// remakeAll makes every live subscription again, each on a goroutine of
// its own, after a reconnect: the ids of the old connection are dropped.
func (t *subscriptionTable) remakeAll(c *Client) {
	t.mu.Lock()
	subs := make([]*ClientSubscription, 0, len(t.live))
	for s := range t.live {
		subs = append(subs, s)
	}
	clear(t.byID)
	t.mu.Unlock()
	for _, s := range subs {
		t.remake(c, s)
	}
}

// remake makes s again, on a goroutine of its own.
func (t *subscriptionTable) remake(c *Client, s *ClientSubscription) {
	s.mu.Lock()
	s.id = ""
	s.mu.Unlock()
	c.serving.Add(1)
	go func() {
		defer c.serving.Done()
		s.remake()
	}()
}

// remake makes s again on the current connection.
func (s *ClientSubscription) remake() {
	c := s.client
	params := s.params
	if f := c.opts.resubscribe; f != nil {
		s.mu.Lock()
		last := rpccore.RawJSON(slices.Clone(s.last))
		s.mu.Unlock()
		params = f(s.namespace, s.params, last)
	}
	err := c.subscribe(c.ctx, s, params, true)
	switch {
	case errors.Is(err, errRemadeLater):
		// Lost with its connection; the next one makes s again.
	case err == nil:
		if !s.recovered() {
			select {
			case s.gap <- struct{}{}:
			default:
			}
		}
	case errors.Is(err, ErrClientClosed), c.ctx.Err() != nil:
		s.end(ErrClientClosed)
	default:
		s.end(fmt.Errorf("rpcclient: %s subscription could not be made again after a reconnect: %w", s.namespace, err))
	}
}

// endAll ends every subscription with err as the client closes.
func (t *subscriptionTable) endAll(err error) {
	t.mu.Lock()
	t.closed = true
	subs := make([]*ClientSubscription, 0, len(t.live))
	for s := range t.live {
		subs = append(subs, s)
	}
	t.mu.Unlock()
	for _, s := range subs {
		s.end(err)
		<-s.done
	}
}
