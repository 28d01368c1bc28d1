package rpccore

// resume.go lets a subscription follow a hub topic and resume after a lost
// connection. Besides go-ethereum's positional form, <ns>_subscribe takes
// its params as an object:
//
//	--> {"jsonrpc":"2.0","method":"demo_subscribe","id":1,
//	     "params":{"name":"chat","args":[],"resume":{"epoch":"3f9a...","offset":41}}}
//	<-- {"jsonrpc":"2.0","id":1,"result":{"subscription":"0x...",
//	     "position":{"epoch":"3f9a...","offset":41},"recovered":true}}
//	<-- notifications 42, 43, ... (each with its "position"), then the live ones
//
// "args" and "resume" may be left out. The answer's "position" is where the
// notifications go on from; it is absent when the topic keeps no history.
// "recovered" is there when "resume" was: true means every message after the
// resume position follows, in order, none twice, before the live ones;
// false means the history no longer holds all of them (or its epoch
// changed) and only live notifications follow. Never a partial replay.

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// resumeOutcome is what came of a subscription's resume request.
type resumeOutcome uint8

const (
	resumeNotAsked resumeOutcome = iota
	resumeRecovered
	resumeNotRecovered
)

// ResumeObserver is an Observer told how each resume request ended:
// recovered, or answered "not recovered".
type ResumeObserver interface {
	Observer
	ObserveResume(recovered bool)
}

// observeResume tells the server's observer of a resume, when it listens.
func (s *Server) observeResume(recovered bool) {
	if o, ok := s.cfg.observer.(ResumeObserver); ok {
		o.ObserveResume(recovered)
	}
}

// subscribeParams are a subscribe call's params, in either form.
type subscribeParams struct {
	name   string
	args   []byte // a JSON array, or nil
	resume *Position
	object bool // given as an object: answered with an object
}

// readSubscribeParams reads ["name", args...] or {"name", "args", "resume"}.
func readSubscribeParams(params []byte) (subscribeParams, error) {
	if params != nil && params[0] == '{' {
		return readSubscribeObject(params)
	}
	name, args, err := splitSubscribeParams(params)
	return subscribeParams{name: name, args: args}, err
}

// readSubscribeObject reads the object form of a subscribe call's params.
func readSubscribeObject(params []byte) (subscribeParams, error) {
	p := subscribeParams{object: true}
	var failure error
	named := false
	jsontext.EachMember(params, func(name, val []byte) bool {
		switch string(name) {
		case "name":
			if val[0] != '"' {
				failure = invalidParams(`"name" must be a string`)
				return false
			}
			p.name, failure = decodeString(val)
			named = failure == nil
		case "args":
			switch val[0] {
			case '[':
				p.args = val
			case 'n':
			default:
				failure = invalidParams(`"args" must be an array`)
			}
		case "resume":
			if val[0] == 'n' {
				break
			}
			pos, ok := ParsePosition(val)
			if !ok {
				failure = invalidParams(`"resume" must be {"epoch": string, "offset": number}, a position from a notification`)
				return false
			}
			p.resume = &pos
		default:
			failure = invalidParams("unknown member " + strconv.Quote(string(name)) + `; want "name", "args" and "resume"`)
		}
		return failure == nil
	})
	if failure == nil && !named {
		failure = invalidParams(`want {"name": "<subscription name>", "args": [...], "resume": {...}}`)
	}
	return p, failure
}

// ParsePosition reads a position, {"epoch": string, "offset": number},
// from valid JSON text, and reports whether it was one.
func ParsePosition(val []byte) (Position, bool) {
	var p Position
	if len(val) == 0 || val[0] != '{' {
		return p, false
	}
	epoch, offset, ok := false, false, true
	jsontext.EachMember(val, func(name, v []byte) bool {
		switch string(name) {
		case "epoch":
			if v[0] != '"' {
				ok = false
			} else if e, err := decodeString(v); err != nil {
				ok = false
			} else {
				p.Epoch, epoch = e, true
			}
		case "offset":
			p.Offset, offset = jsontext.ParseUint(v)
			ok = offset
		default:
			ok = false
		}
		return ok
	})
	return p, ok && epoch && offset
}

// appendAnswer appends the object answer to a subscribe call made with the
// object form.
func (s *Subscription) appendAnswer(dst []byte) []byte {
	dst = append(dst, `{"subscription":`...)
	dst = jsontext.AppendQuote(dst, s.id)
	if !s.position.IsZero() {
		dst = AppendPosition(append(dst, `,"position":`...), s.position)
	}
	switch s.resumed {
	case resumeRecovered:
		dst = append(dst, `,"recovered":true`...)
	case resumeNotRecovered:
		dst = append(dst, `,"recovered":false`...)
	}
	return append(dst, '}')
}

// Resume returns the position the client asked to resume from, or nil.
// Follow uses it; a source with a history of its own may too.
func (s *Subscription) Resume() *Position { return s.resume }

// Resumed records the outcome of the client's resume request for a
// source that replays from a history of its own: recovered true once it
// will send every value after Resume(), false when it cannot. Its position
// is where its values go on from. Follow calls it for hub topics.
func (s *Subscription) Resumed(recovered bool, position Position) {
	s.position = position
	if s.resume == nil {
		return
	}
	s.resumed = resumeNotRecovered
	if recovered {
		s.resumed = resumeRecovered
	}
}

// ErrReplayLost ends a connection whose subscription was replaying missed
// messages when the history dropped some of the ones still to replay: the
// client resumes again and is told plainly whether it recovered.
var ErrReplayLost = errors.New("rpccore: the history dropped messages still to replay")

// Follow sends the messages published on topic to the subscription until
// it ends. A source calls it while it starts. When hub keeps history,
// each notification carries its position, and a client that asked to
// resume gets every message it missed first, or is told it could not.
func (s *Subscription) Follow(hub Hub, topic string) error {
	hh, ok := hub.(HistoryHub)
	if !ok || !hh.KeepsHistory() {
		unsubscribe, err := hub.Subscribe(topic, func(m Message) { _ = s.SendMessage(m) })
		if err != nil {
			return err
		}
		context.AfterFunc(s.ctx, unsubscribe)
		s.Resumed(false, Position{})
		return nil
	}
	f := &follower{sub: s, hub: hh, topic: topic, replaying: true}
	unsubscribe, err := hub.Subscribe(topic, f.live)
	if err != nil {
		return err
	}
	context.AfterFunc(s.ctx, unsubscribe)
	if s.resume != nil {
		// A history that cannot be read now (its broker is away) cannot
		// recover either: the answer says so, and live messages follow.
		if msgs, ok, err := hh.History(s.ctx, topic, *s.resume); err == nil && ok {
			f.last = *s.resume
			s.Resumed(true, *s.resume)
			go f.replay(msgs)
			return nil
		}
	}
	head, err := hh.Head(s.ctx, topic)
	if err != nil {
		head = Position{} // no position to give; live messages still follow
	}
	s.Resumed(false, head)
	f.last = head
	f.goLive()
	return nil
}

// follower delivers a topic's messages to one subscription: the missed
// ones from the history first, while the live ones wait, then the live
// ones, each once, in order.
type follower struct {
	sub   *Subscription
	hub   HistoryHub
	topic string

	mu        sync.Mutex
	last      Position  // of the newest message sent
	replaying bool      // the history is being sent: live messages wait
	waiting   []Message // live messages that came meanwhile
	overflow  bool      // more came than waiting may hold: read the history again
}

// live is the hub's deliver function.
func (f *follower) live(m Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.replaying {
		if len(f.waiting) < f.sub.peer.cfg.SendQueue {
			f.waiting = append(f.waiting, m)
		} else {
			f.waiting, f.overflow = f.waiting[:0], true
		}
		return
	}
	f.sendLocked(m)
}

// sendLocked sends m unless it was sent already.
func (f *follower) sendLocked(m Message) {
	if m.Position.Epoch == f.last.Epoch && m.Position.Offset <= f.last.Offset {
		return
	}
	f.last = m.Position
	_ = f.sub.SendMessage(m)
}

// goLive sends what waited and lets live messages through.
func (f *follower) goLive() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.waiting {
		f.sendLocked(m)
	}
	f.waiting, f.replaying = nil, false
}

// replay sends msgs, waiting for room rather than dropping, then what
// live messages waited meanwhile, the same way, until none waits; then it
// lets live messages through. When more waited than it keeps, it reads the
// history again instead.
func (f *follower) replay(msgs []Message) {
	for {
		for _, m := range msgs {
			if m.Position.Epoch == f.last.Epoch && m.Position.Offset <= f.last.Offset {
				continue // sent already: in the history and live too
			}
			if f.sub.sendWait(f.sub.notification(m)) != nil {
				return
			}
			f.mu.Lock()
			f.last = m.Position
			f.mu.Unlock()
		}
		f.mu.Lock()
		switch {
		case f.overflow:
			f.waiting, f.overflow = nil, false
			after := f.last
			f.mu.Unlock()
			var ok bool
			var err error
			if msgs, ok, err = f.hub.History(f.sub.ctx, f.topic, after); err != nil || !ok {
				if f.sub.ctx.Err() == nil {
					f.sub.peer.setFailure(ErrReplayLost)
				}
				return
			}
		case len(f.waiting) > 0:
			msgs, f.waiting = f.waiting, nil
			f.mu.Unlock()
		default:
			f.replaying = false
			f.mu.Unlock()
			return
		}
	}
}
