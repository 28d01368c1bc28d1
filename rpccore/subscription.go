package rpccore

// subscription.go implements subscriptions in the convention go-ethereum,
// jsonrpsee and the Ethereum JavaScript clients speak:
//
//	--> {"jsonrpc":"2.0","method":"<ns>_subscribe","params":["<name>", args...],"id":1}
//	<-- {"jsonrpc":"2.0","result":"0x<id>","id":1}
//	<-- {"jsonrpc":"2.0","method":"<ns>_subscription","params":{"subscription":"0x<id>","result":<value>}}
//	--> {"jsonrpc":"2.0","method":"<ns>_unsubscribe","params":["0x<id>"],"id":2}
//	<-- {"jsonrpc":"2.0","result":true,"id":2}
//
// A source that follows a hub topic with history (Follow) adds each
// message's position to its notifications, and <ns>_subscribe also takes
// its params as an object that can ask to resume (see resume.go).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Subscription is one client's subscription. Its source sends values with
// Send or SendJSON until Context is done (the client unsubscribed or went
// away).
type Subscription struct {
	id     string
	peer   *Peer
	head   []byte // the notification up to its result
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	active bool          // the client has the id: notifications may flow
	held   []outMsg      // sent before then
	ready  chan struct{} // closed when active, for SendJSONWait; made on demand

	resume   *Position // where the client asked to resume from, or nil
	position Position  // where the notifications go on from, set by Follow
	resumed  resumeOutcome
}

type subscriptionKey struct{}

// SubscriptionFrom returns the subscription a source is starting, from the
// context its method receives.
func SubscriptionFrom(ctx context.Context) *Subscription {
	s, _ := ctx.Value(subscriptionKey{}).(*Subscription)
	return s
}

// ID returns the subscription id the client received.
func (s *Subscription) ID() string { return s.id }

// Context ends when the subscription does.
func (s *Subscription) Context() context.Context { return s.ctx }

// Peer returns the connection the subscription belongs to.
func (s *Subscription) Peer() *Peer { return s.peer }

// Send encodes v and sends it as the subscription's next value.
func (s *Subscription) Send(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.SendJSON(raw)
}

// SendJSON sends result, one encoded JSON value, as the next value. It is
// shared, not copied, so one encoding serves every subscriber of a
// broadcast; it must not change afterwards. It does not wait: a full send
// queue drops the oldest notification or ends the connection, as the
// server is configured.
func (s *Subscription) SendJSON(result []byte) error {
	return s.send(outMsg{head: s.head, body: result, notification: true})
}

// SendMessage sends a hub message as the next value, with its position
// when it has one. Like SendJSON, it does not wait.
func (s *Subscription) SendMessage(m Message) error {
	return s.send(s.notification(m))
}

// notification is the notification of hub message m, its position included.
func (s *Subscription) notification(m Message) outMsg {
	return outMsg{head: s.head, body: m.Payload, tail: m.tail, notification: true}
}

// send queues m under the slow-consumer policy, or holds it until the
// client has the subscription's id.
func (s *Subscription) send(m outMsg) error {
	if s.ctx.Err() != nil {
		return ErrPeerClosed
	}
	s.mu.Lock()
	if !s.active {
		if len(s.held) < s.peer.cfg.SendQueue {
			s.held = append(s.held, m)
		}
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return s.peer.sendNotification(m)
}

// SendJSONWait sends result as SendJSON does, but never drops it: while
// the send queue holds its limit of notifications it waits for the writer
// to take them, whatever the slow-consumer policy. A source that sends as
// fast as the client reads uses it. It returns ErrPeerClosed once the
// subscription or the connection has ended.
func (s *Subscription) SendJSONWait(result []byte) error {
	return s.sendWait(outMsg{head: s.head, body: result, notification: true})
}

// sendWait queues m, waiting for room rather than dropping.
func (s *Subscription) sendWait(m outMsg) error {
	for {
		if s.ctx.Err() != nil {
			return ErrPeerClosed
		}
		s.mu.Lock()
		if s.active {
			s.mu.Unlock()
			return s.peer.out.pushNotificationWait(m, s.ctx)
		}
		if len(s.held) < s.peer.cfg.SendQueue {
			s.held = append(s.held, m)
			s.mu.Unlock()
			return nil
		}
		if s.ready == nil {
			s.ready = make(chan struct{})
		}
		ready := s.ready
		s.mu.Unlock()
		select {
		case <-ready:
		case <-s.ctx.Done():
		}
	}
}

// activate lets notifications flow, the held ones first.
func (s *Subscription) activate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.held {
		if s.peer.sendNotification(m) != nil {
			break
		}
	}
	s.held, s.active = nil, true
	if s.ready != nil {
		close(s.ready)
	}
}

// subscriptionTable holds a peer's open subscriptions by id.
type subscriptionTable struct {
	mu     sync.Mutex
	byID   map[string]*Subscription
	closed bool
	events PeerObserver
}

func (t *subscriptionTable) init(events PeerObserver) {
	t.events = events
}

// add registers s unless the limit is reached or the peer has ended.
func (t *subscriptionTable) add(s *Subscription, limit int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return ErrPeerClosed
	case len(t.byID) >= limit:
		return &Error{Code: CodeServerError, Message: "too many subscriptions on this connection (limit " +
			strconv.Itoa(limit) + ")"}
	}
	if t.byID == nil {
		t.byID = map[string]*Subscription{}
	}
	t.byID[s.id] = s
	t.events.SubscriptionsChanged(1)
	return nil
}

// remove ends the subscription id and reports whether it was open.
func (t *subscriptionTable) remove(id string) bool {
	t.mu.Lock()
	s := t.byID[id]
	delete(t.byID, id)
	t.mu.Unlock()
	if s != nil {
		s.cancel()
		t.events.SubscriptionsChanged(-1)
	}
	return s != nil
}

// endAll ends every subscription and refuses new ones.
func (t *subscriptionTable) endAll() {
	t.mu.Lock()
	subs := t.byID
	t.byID, t.closed = nil, true
	t.mu.Unlock()
	for _, s := range subs {
		s.cancel()
	}
	if len(subs) > 0 {
		t.events.SubscriptionsChanged(-len(subs))
	}
}

// count returns the number of open subscriptions.
func (t *subscriptionTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// Subscriptions returns the number of subscriptions open on the peer.
func (p *Peer) Subscriptions() int { return p.subs.count() }

// ErrSubscriptionsNeedPeer answers a subscribe call that did not come over
// a peer connection (plain HTTP, say).
var ErrSubscriptionsNeedPeer = &Error{Code: CodeMethodNotFound,
	Message: "notifications not supported: subscriptions need a WebSocket connection"}

// subscriptionSources are the sources of one namespace, by name.
type subscriptionSources struct {
	mu      sync.RWMutex
	sources map[string]*Method
}

// RegisterSubscription makes name available through <namespace>_subscribe.
// The source m is an ordinary Method whose params are the subscribe call's
// arguments after the name; it runs when a client subscribes, finds its
// Subscription with SubscriptionFrom, sets up whatever sends the values
// (a goroutine, a Hub subscription) until the subscription's Context is
// done, and returns. Its result is ignored; its error fails the subscribe
// call. The first registration in a namespace registers <namespace>_subscribe
// and <namespace>_unsubscribe.
func (s *Server) RegisterSubscription(namespace, name string, m *Method) error {
	switch {
	case m == nil:
		return errors.New("rpccore: nil subscription source " + strconv.Quote(name))
	case m.err != nil:
		return errors.New("subscription " + strconv.Quote(name) + ": " + m.err.Error())
	}
	s.mu.Lock()
	if s.subscriptions == nil {
		s.subscriptions = map[string]*subscriptionSources{}
	}
	ns := s.subscriptions[namespace]
	fresh := ns == nil
	if fresh {
		ns = &subscriptionSources{sources: map[string]*Method{}}
		s.subscriptions[namespace] = ns
	}
	s.mu.Unlock()
	if fresh {
		sub := Raw(s.subscribeMethod(namespace, ns)).Describe(Doc{
			Summary: "Subscribes to one of the " + namespace + " subscriptions: the answer is the subscription's id, " +
				"then each value comes in a " + namespace + "_subscription notification.",
		})
		if err := s.Register(namespace+"_subscribe", sub); err != nil {
			return err
		}
		unsub := Func1(unsubscribe, "id").Describe(Doc{
			Summary: "Ends a subscription made with " + namespace + "_subscribe.",
			Params:  map[string]string{"id": "The subscription's id, as " + namespace + "_subscribe answered it."},
			Result:  "true when the subscription was open, false when it had already ended.",
		})
		if err := s.Register(namespace+"_unsubscribe", unsub); err != nil {
			return err
		}
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if _, dup := ns.sources[name]; dup {
		return errors.Join(ErrDuplicateMethod, errors.New("subscription "+strconv.Quote(name)+" in namespace "+
			strconv.Quote(namespace)+" is registered twice"))
	}
	ns.sources[name] = m
	return nil
}

// subscribeMethod is the Raw method <namespace>_subscribe.
func (s *Server) subscribeMethod(namespace string, ns *subscriptionSources) func(context.Context, []byte, *ResultWriter) error {
	head := `{"jsonrpc":"2.0","method":` + string(jsontext.AppendQuote(nil, namespace+"_subscription")) + `,"params":{"subscription":"`
	return func(ctx context.Context, params []byte, w *ResultWriter) error {
		turn := turnFrom(ctx)
		if turn == nil {
			return ErrSubscriptionsNeedPeer
		}
		p := turn.peer
		req, err := readSubscribeParams(params)
		if err != nil {
			return err
		}
		ns.mu.RLock()
		source := ns.sources[req.name]
		ns.mu.RUnlock()
		if source == nil {
			return invalidParams("no subscription " + strconv.Quote(req.name) + " in namespace " + strconv.Quote(namespace))
		}
		sub := &Subscription{id: newSubscriptionID(), peer: p, resume: req.resume}
		sub.head = []byte(head + sub.id + `","result":`)
		sub.ctx, sub.cancel = context.WithCancel(p.ctx)
		if err := p.subs.add(sub, p.cfg.MaxSubscriptions); err != nil {
			sub.cancel()
			return err
		}
		sourceCtx := context.WithValue(sub.ctx, subscriptionKey{}, sub)
		if info := RequestInfoFrom(ctx); info != nil {
			sourceCtx = WithRequestInfo(sourceCtx, info)
		}
		if _, err := source.call(sourceCtx, rawParams(req.args), nil); err != nil {
			p.subs.remove(sub.id)
			return err
		}
		turn.opened = append(turn.opened, sub) // started once the answer is queued
		if sub.resumed != resumeNotAsked {
			s.observeResume(sub.resumed == resumeRecovered)
		}
		if req.object {
			return w.Raw(sub.appendAnswer(nil))
		}
		w.String(sub.id)
		return nil
	}
}

// splitSubscribeParams reads ["name", args...] into the name and the args
// as an array of their own.
func splitSubscribeParams(params []byte) (name string, args []byte, err error) {
	if params == nil || params[0] != '[' {
		return "", nil, invalidParams("want [\"<subscription name>\", args...]")
	}
	i := jsontext.SkipSpace(params, 1)
	if params[i] != '"' {
		return "", nil, invalidParams("want the subscription name first")
	}
	end := jsontext.SkipValue(params, i)
	if name, err = decodeString(params[i:end]); err != nil {
		return "", nil, invalidParams(err.Error())
	}
	rest := jsontext.SkipSpace(params, end)
	if params[rest] == ']' {
		return name, nil, nil
	}
	args = append([]byte{'['}, params[rest+1:]...) // after the comma, through the closing ']'
	return name, args, nil
}

// unsubscribe is <namespace>_unsubscribe.
func unsubscribe(ctx context.Context, id string) (bool, error) {
	p := PeerFrom(ctx)
	if p == nil {
		return false, ErrSubscriptionsNeedPeer
	}
	return p.subs.remove(id), nil
}

// newSubscriptionID returns a random id in go-ethereum's form: 0x and 32
// hex digits.
func newSubscriptionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "0x" + hex.EncodeToString(b[:])
}
