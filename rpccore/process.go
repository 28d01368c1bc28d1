package rpccore

// process.go turns a request document into a response document: the scan,
// the limits, and the answer to each request object.

import (
	"context"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Summary tells a transport what a document held, for logs and metrics.
type Summary struct {
	// Method is the first request's method name ("" when it has none).
	Method string
	// ID is the first request's raw id (nil when it has none). It points
	// into the request document: copy it to keep it after that buffer is
	// reused.
	ID []byte
	// BatchSize is the number of items of a batch, 0 for a single request.
	BatchSize int
	// ErrorCode is the code of the first error answered, 0 when none.
	ErrorCode int
}

// Process reads the JSON-RPC 2.0 document req, runs the calls it holds and
// appends the response document to dst, which it returns. Nothing is
// appended when there is nothing to answer (only notifications). req is
// not retained after Process returns; methods see ctx.
func (s *Server) Process(ctx context.Context, req, dst []byte) []byte {
	return s.ProcessSummary(ctx, req, dst, nil)
}

// ProcessSummary is Process that also fills sum, when not nil.
func (s *Server) ProcessSummary(ctx context.Context, req, dst []byte, sum *Summary) []byte {
	out, _ := s.process(ctx, req, dst, sum, nil)
	return out
}

// inbound is how a peer connection changes processing: responses to its own
// calls are handed back, and documents that would block are left for the
// peer to run on another goroutine.
type inbound struct {
	deferBlocking bool
	onResponse    func(id, result, errVal []byte)
}

// process is ProcessSummary for a transport that may pass in. It returns
// deferred (and runs nothing) when in asks to defer a document that calls
// a Blocking method.
func (s *Server) process(ctx context.Context, req, dst []byte, sum *Summary, in *inbound) (out []byte, deferred bool) {
	if len(req) > s.cfg.maxRequestBytes {
		e := invalidRequest("request of " + strconv.Itoa(len(req)) + " bytes exceeds the limit of " +
			strconv.Itoa(s.cfg.maxRequestBytes))
		sum.noteError(e.Code)
		return appendErrorAnswer(dst, e, nullID), false
	}
	if i := jsontext.SkipSpace(req, 0); i < len(req) && req[i] == '[' {
		return s.processBatch(ctx, req, dst, sum, in)
	}
	var d document
	if !parseDocument(req, &d) {
		sum.noteError(CodeParseError)
		return append(dst, errParse...), false
	}
	if d.nonObj {
		sum.noteError(CodeInvalidRequest)
		return appendErrorAnswer(dst, nil, nullID), false
	}
	if d.maxDepth > s.cfg.maxDepth {
		e := s.depthError(d.maxDepth)
		sum.noteError(e.Code)
		return appendErrorAnswer(dst, e, d.single.idOrNull()), false
	}
	if in != nil {
		if in.onResponse != nil && d.single.isResponse() {
			in.onResponse(d.single.id, d.single.result, d.single.errVal)
			return dst, false
		}
		if in.deferBlocking && !d.single.invalid {
			if e := s.lookup(&d.single); e != nil && e.blocking {
				return dst, true
			}
		}
	}
	if sum != nil {
		sum.note(s, &d.single)
	}
	start := len(dst)
	dst, code := s.answer(ctx, &d.single, dst)
	if len(dst)-start > s.cfg.maxResponseBytes {
		code = CodeResponseTooLarge
		dst = appendErrorBodyAnswer(dst[:start], errBodyTooLarge, d.single.id)
	}
	sum.noteError(code)
	return dst, false
}

// depthError is the answer to a document nested deeper than allowed.
func (s *Server) depthError(depth int) *Error {
	return invalidRequest("nesting depth " + strconv.Itoa(depth) + " exceeds the limit of " +
		strconv.Itoa(s.cfg.maxDepth))
}

// note records the first request of a document.
func (sum *Summary) note(s *Server, r *request) {
	sum.ID = r.id
	if r.invalid {
		return
	}
	if e := s.lookup(r); e != nil {
		sum.Method = e.name
	} else if r.escaped {
		sum.Method = string(jsontext.AppendUnquote(nil, r.method))
	} else {
		sum.Method = string(r.method)
	}
}

// noteError records code as the document's error code if it is the first.
func (sum *Summary) noteError(code int) {
	if sum != nil && sum.ErrorCode == 0 {
		sum.ErrorCode = code
	}
}

// answer runs one request and appends its answer object (nothing for a
// notification). It returns the error code answered, 0 for success.
func (s *Server) answer(ctx context.Context, r *request, dst []byte) ([]byte, int) {
	if r.invalid {
		return appendErrorBodyAnswer(dst, errBodyInvalid, r.idOrNull()), CodeInvalidRequest
	}
	e := s.lookup(r)
	if e == nil {
		if r.id == nil {
			return dst, 0
		}
		return appendErrorBodyAnswer(dst, errBodyNotFound, r.id), CodeMethodNotFound
	}
	start := len(dst)
	dst = append(dst, resultPrefix...)
	resultStart := len(dst)
	var began time.Time
	if s.cfg.observer != nil {
		began = time.Now()
	}
	dst, err := s.invoke(ctx, e, &r.args, dst)
	code := 0
	if err != nil {
		rpcErr := asError(err)
		code = rpcErr.Code
		if r.id != nil {
			dst = appendErrorAnswer(dst[:start], rpcErr, r.id)
		}
	} else if r.id != nil {
		if len(dst) == resultStart {
			dst = append(dst, "null"...)
		}
		dst = append(dst, idInfix...)
		dst = append(dst, r.id...)
		dst = append(dst, '}')
	}
	if s.cfg.observer != nil {
		s.cfg.observer.ObserveCall(e.name, code, time.Since(began))
	}
	if r.id == nil {
		return dst[:start], code
	}
	return dst, code
}

// invoke calls the method, turning a panic into -32603.
func (s *Server) invoke(ctx context.Context, e *entry, params *callParams, dst []byte) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			if s.cfg.onPanic != nil {
				s.cfg.onPanic(ctx, e.name, v, debug.Stack())
			}
			out, err = dst, &Error{Code: CodeInternalError, Message: "Internal error"}
		}
	}()
	return e.call(ctx, *params, dst)
}

// appendErrorAnswer appends an error answer; a nil e is -32600.
func appendErrorAnswer(dst []byte, e *Error, id []byte) []byte {
	if e == nil {
		return appendErrorBodyAnswer(dst, errBodyInvalid, id)
	}
	dst = append(dst, responsePrefix...)
	dst = appendErrorBody(dst, e)
	dst = append(dst, idInfix...)
	dst = append(dst, id...)
	return append(dst, '}')
}

// appendErrorBodyAnswer appends an answer with a precomputed error member.
func appendErrorBodyAnswer(dst, body, id []byte) []byte {
	if id == nil {
		id = nullID
	}
	dst = append(dst, responsePrefix...)
	dst = append(dst, body...)
	dst = append(dst, idInfix...)
	dst = append(dst, id...)
	return append(dst, '}')
}

// documentPool recycles the request lists of batches.
var documentPool = sync.Pool{New: func() any { return new(document) }}
