package rpccore

// forward.go is the seam for methods served elsewhere: a Forwarder takes
// the calls whose names match its patterns and that no registered method
// serves, and answers them (by sending them on to another server, say).

import (
	"context"
	"errors"
	"path"
	"runtime/debug"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Forwarder answers calls that the server does not run itself. Forward is
// handed the calls of one document bound for it: the one call of a single
// request, or every call of a batch that it takes, in request order, so
// that it can send them on together. It fills in each call's Result or
// Error before it returns (a call left with neither answers null). It must
// be safe for concurrent use, must return soon once ctx ends, and must not
// keep calls, or the bytes they point to, after it returns.
//
// The server keeps the clients' ids: it echoes each call's id from the
// request, whatever the Forwarder does, so a Forwarder never sees them.
type Forwarder interface {
	Forward(ctx context.Context, calls []ForwardedCall)
}

// ForwardFunc is a function that is a Forwarder.
type ForwardFunc func(ctx context.Context, calls []ForwardedCall)

// Forward calls f.
func (f ForwardFunc) Forward(ctx context.Context, calls []ForwardedCall) { f(ctx, calls) }

// ForwardedCall is one call handed to a Forwarder, with the slots of its
// answer.
type ForwardedCall struct {
	// Method is the method's name, unescaped.
	Method string
	// Params is the params value as the client wrote it (an array or an
	// object, already validated), nil when the call has none. It points
	// into the request document: it is valid only until Forward returns.
	Params []byte
	// Notification is true for a notification: no answer goes back, and
	// Result and Error are not read.
	Notification bool
	// Result is the Forwarder's answer: the raw result, one valid JSON
	// value. One that is not valid JSON is answered -32603 instead. It is
	// copied before Forward's caller goes on.
	Result []byte
	// Error, when set, is answered instead of Result.
	Error *Error
}

// forwarder is a registered Forwarder with its patterns.
type forwarder struct {
	patterns []string
	f        Forwarder
}

// RegisterForwarder hands f the calls of every method whose name matches
// one of patterns (Go's path.Match syntax, as in the method filter: `*`
// matches any run of characters but `/`) and that no registered method
// serves: a method registered on the server, before or after, always
// answers its own name. Forwarders are tried in the order they were
// registered; the first with a matching pattern takes the call. The
// method filter (WithMethodFilter) and the call gate (WithCallGate) apply
// to forwarded calls as to the others. The Observer does not hear of them
// (their names are whatever clients send); a Forwarder counts its own.
//
// Within a batch, the calls bound for one Forwarder go to it in one
// Forward, on a goroutine of its own that holds one of the batch's
// concurrency slots (WithBatchConcurrency), beside the batch's other calls;
// with a concurrency of 1 each Forward runs in the batch's order instead.
// Every answer takes its request's place in the batch's answer, within
// the response limit. Over peer connections, a document with forwarded
// calls runs as one calling Blocking methods does.
//
// RegisterForwarder fails for no pattern, an empty one or a bad one.
func (s *Server) RegisterForwarder(patterns []string, f Forwarder) error {
	if f == nil {
		return errors.New("rpccore: nil forwarder")
	}
	if len(patterns) == 0 {
		return errors.New("rpccore: a forwarder needs at least one method pattern")
	}
	for _, p := range patterns {
		if p == "" {
			return errors.New("rpccore: empty forwarder pattern")
		}
		if _, err := path.Match(p, ""); err != nil {
			return errors.New("rpccore: bad forwarder pattern " + strconv.Quote(p) + ": " + err.Error())
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var next []*forwarder
	if old := s.forwarders.Load(); old != nil {
		next = append(next, *old...)
	}
	next = append(next, &forwarder{patterns: append([]string(nil), patterns...), f: f})
	s.forwarders.Store(&next)
	return nil
}

// forwarderFor returns the forwarder that takes r, with r's method name,
// or nil: r must be a valid request that no registered method serves (the
// caller looked), whose name the filter exposes and a pattern matches.
func (s *Server) forwarderFor(fws []*forwarder, r *request) (*forwarder, string) {
	var name string
	if r.escaped {
		name = string(jsontext.AppendUnquote(nil, r.method))
	} else {
		name = string(r.method)
	}
	if s.cfg.filter != nil && !s.cfg.filter(name) {
		return nil, ""
	}
	for _, fw := range fws {
		for _, p := range fw.patterns {
			if ok, _ := path.Match(p, name); ok {
				return fw, name
			}
		}
	}
	return nil, ""
}

// forwarded returns the forwarder that takes r, as forwarderFor, for any
// request: nil for an invalid one or one a registered method serves.
func (s *Server) forwarded(fws []*forwarder, r *request) (*forwarder, string) {
	if r.invalid || s.lookup(r) != nil {
		return nil, ""
	}
	return s.forwarderFor(fws, r)
}

// forwardsAny reports whether the document that read accepted has a call
// that a forwarder takes.
func (s *Server) forwardsAny(fws []*forwarder, d *document) bool {
	if !d.batch {
		fw, _ := s.forwarded(fws, &d.single)
		return fw != nil
	}
	for i := range d.items {
		if fw, _ := s.forwarded(fws, &d.items[i]); fw != nil {
			return true
		}
	}
	return false
}

// answerUnregistered answers a valid request that no registered method
// serves, as answer does: a forwarder takes it, or it is -32601.
func (s *Server) answerUnregistered(ctx context.Context, r *request, dst []byte) ([]byte, int) {
	if fws := s.forwarders.Load(); fws != nil {
		if fw, name := s.forwarderFor(*fws, r); fw != nil {
			return s.forwardOne(ctx, r, fw, name, dst)
		}
	}
	if r.id == nil {
		return dst, 0
	}
	return appendErrorBodyAnswer(dst, errBodyNotFound, r.id), CodeMethodNotFound
}

// forwardOne answers the single request r, which fw takes, as answer does.
func (s *Server) forwardOne(ctx context.Context, r *request, fw *forwarder, name string, dst []byte) ([]byte, int) {
	ctx, traced := s.startForwardTrace(ctx, name, r.id)
	if s.cfg.gate != nil {
		if err := s.cfg.gate(ctx, name); err != nil {
			dst, code := s.refuseCall(r, err, dst)
			if traced {
				s.endForwardTrace(ctx, code, err, nil)
			}
			return dst, code
		}
	}
	calls := []ForwardedCall{{Method: name, Params: r.args.raw, Notification: r.id == nil}}
	s.callForwarder(ctx, fw, calls)
	code := 0
	if r.id != nil {
		dst, code = appendForwarded(dst, &calls[0], r.id)
	}
	if traced {
		s.endForwardTrace(ctx, code, nil, calls[0].Error)
	}
	return dst, code
}

// callForwarder runs fw's Forward, turning a panic into -32603 for every
// call.
func (s *Server) callForwarder(ctx context.Context, fw *forwarder, calls []ForwardedCall) {
	defer func() {
		if v := recover(); v != nil {
			if s.cfg.panics != nil {
				s.cfg.panics.ObservePanic(ctx, calls[0].Method, v, debug.Stack())
			}
			for i := range calls {
				calls[i].Result, calls[i].Error = nil, &Error{Code: CodeInternalError, Message: "Internal error"}
			}
		}
	}()
	fw.f.Forward(ctx, calls)
}

// appendForwarded appends the answer of a forwarded call with id and
// returns the error code answered.
func appendForwarded(dst []byte, c *ForwardedCall, id []byte) ([]byte, int) {
	if c.Error != nil {
		return appendErrorAnswer(dst, c.Error, id), c.Error.Code
	}
	result := c.Result
	if result == nil {
		result = nullResult
	} else if !Valid(result) {
		return appendErrorAnswer(dst, errForwardedInvalid, id), CodeInternalError
	}
	dst = appendResultPrefix(dst)
	dst = append(dst, result...)
	return appendIDMember(dst, id), 0
}

var (
	nullResult          = []byte("null")
	errForwardedInvalid = &Error{Code: CodeInternalError, Message: "Internal error",
		Data: "the forwarded call's result is not valid JSON"}
)
