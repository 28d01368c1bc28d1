package rpccore

// process.go turns a request document into a response document: the scan,
// the limits, and the answer to each request object.

import (
	"context"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
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
	var single document
	batch, out, answered := s.read(req, &single, dst, sum)
	if answered {
		return out
	}
	d := &single
	if batch != nil {
		d = batch
		defer putDocument(batch)
	}
	return s.answerDocument(ctx, d, dst, sum)
}

// read scans req and checks the limits. A single request goes into
// single; a batch into a pooled document, which read returns and the
// caller gives back with putDocument. When the document cannot run at all
// (invalid JSON, a limit crossed, an empty batch) read appends the one
// error answer to dst and reports answered. It runs nothing, so that a
// transport may look at the document before answering it.
func (s *Server) read(req []byte, single *document, dst []byte, sum *Summary) (batch *document, out []byte, answered bool) {
	if len(req) > s.cfg.maxRequestBytes {
		e := invalidRequest("request of " + strconv.Itoa(len(req)) + " bytes exceeds the limit of " +
			strconv.Itoa(s.cfg.maxRequestBytes))
		sum.noteError(e.Code)
		return nil, appendErrorAnswer(dst, e, nullID), true
	}
	if i := nextNonSpace(req, 0); i < len(req) && req[i] == '[' {
		batch = getDocument()
		if out, answered = s.readBatch(req, batch, dst, sum); answered {
			putDocument(batch)
			return nil, out, true
		}
		return batch, dst, false
	}
	if !parseDocument(req, single) {
		sum.noteError(CodeParseError)
		return nil, append(dst, errParse...), true
	}
	if single.nonObj {
		sum.noteError(CodeInvalidRequest)
		return nil, appendErrorAnswer(dst, nil, nullID), true
	}
	if single.maxDepth > s.cfg.maxDepth {
		e := s.depthError(single.maxDepth)
		sum.noteError(e.Code)
		return nil, appendErrorAnswer(dst, e, single.single.idOrNull()), true
	}
	return nil, dst, false
}

// readBatch is read for a batch.
func (s *Server) readBatch(req []byte, d *document, dst []byte, sum *Summary) (out []byte, answered bool) {
	d.batch = true
	if !parseDocument(req, d) {
		sum.noteError(CodeParseError)
		return append(dst, errParse...), true
	}
	n := len(d.items)
	var limitErr *Error
	switch {
	case n == 0:
		sum.noteError(CodeInvalidRequest)
		return appendErrorAnswer(dst, nil, nullID), true
	case n > s.cfg.maxBatch:
		limitErr = invalidRequest("batch of " + strconv.Itoa(n) + " items exceeds the limit of " +
			strconv.Itoa(s.cfg.maxBatch))
	case d.maxDepth > s.cfg.maxDepth:
		limitErr = s.depthError(d.maxDepth)
	}
	if sum != nil {
		sum.BatchSize = n
		sum.note(s, &d.items[0])
	}
	if limitErr != nil {
		sum.noteError(limitErr.Code)
		return appendErrorAnswer(dst, limitErr, nullID), true
	}
	return dst, false
}

// answerDocument runs the calls of a document that read accepted and
// appends the response document to dst.
func (s *Server) answerDocument(ctx context.Context, d *document, dst []byte, sum *Summary) []byte {
	if d.batch {
		return s.answerBatch(ctx, d, dst, sum)
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
	return dst
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
		sum.Method = string(unescapeInto(nil, r.method))
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
			if s.cfg.panics != nil {
				s.cfg.panics.ObservePanic(ctx, e.name, v, debug.Stack())
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

// documentPool recycles the documents of batches, with their request lists.
var documentPool = sync.Pool{New: func() any { return new(document) }}

// getDocument returns an empty pooled document.
func getDocument() *document {
	d := documentPool.Get().(*document)
	*d = document{items: d.items[:0]}
	return d
}

// putDocument returns d to the pool.
func putDocument(d *document) {
	clear(d.items)
	d.items = d.items[:0]
	documentPool.Put(d)
}
