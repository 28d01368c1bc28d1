package rpccore

// process.go turns a request document into a response document: the scan,
// the limits, and the answer to each request object.

import (
	"context"
	"math/rand/v2"
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
	if len(req) > s.cfg.maxRequestBytes {
		return s.refuseSize(req, dst, sum)
	}
	if isBatch(req) {
		return s.processBatch(ctx, req, dst, sum)
	}
	var d document
	if !s.readSingle(req, &d) {
		return s.refuseSingle(&d, dst, sum)
	}
	return s.answerSummarized(ctx, &d, dst, sum)
}

// answerSummarized answers the single request that readSingle accepted,
// filling sum.
func (s *Server) answerSummarized(ctx context.Context, d *document, dst []byte, sum *Summary) []byte {
	if sum != nil {
		sum.note(s, &d.single)
	}
	start := len(dst)
	dst, code := s.answer(ctx, &d.single, dst, nil)
	if len(dst)-start > s.cfg.maxResponseBytes {
		return s.responseTooLarge(&d.single, dst[:start], sum)
	}
	sum.noteError(code)
	return dst
}

// The steps of ProcessSummary, which a peer takes one by one so that it can
// look at a document between reading and answering it: refuseSize for a
// document over the size limit; for a batch (isBatch), readBatch and
// answerBatch; for anything else, readSingle, then refuseSingle or
// answerSingle. Reading runs nothing.

// processBatch is ProcessSummary for a batch.
func (s *Server) processBatch(ctx context.Context, req, dst []byte, sum *Summary) []byte {
	d := getDocument()
	defer putDocument(d)
	if out, refused := s.readBatch(req, d, dst, sum); refused {
		return out
	}
	return s.answerBatch(ctx, d, dst, sum, nil)
}

// isBatch reports whether the document is an array.
func isBatch(req []byte) bool {
	i := jsontext.SkipSpace(req, 0)
	return i < len(req) && req[i] == '['
}

// refuseSize answers a document over the size limit.
func (s *Server) refuseSize(req, dst []byte, sum *Summary) []byte {
	e := invalidRequest("request of " + strconv.Itoa(len(req)) + " bytes exceeds the limit of " +
		strconv.Itoa(s.cfg.maxRequestBytes))
	sum.noteError(e.Code)
	return appendErrorAnswer(dst, e, nullID)
}

// readSingle scans a document that is not a batch into d and reports
// whether it holds a request object within the limits.
func (s *Server) readSingle(req []byte, d *document) bool {
	d.invalidJSON = !parseDocument(req, d)
	return s.checkSingle(d)
}

// checkSingle reports whether the scanned single document d holds a
// request object within the limits.
func (s *Server) checkSingle(d *document) bool {
	return !d.invalidJSON && !d.nonObj && d.maxDepth <= s.cfg.maxDepth
}

// refuseSingle answers a document that readSingle refused.
func (s *Server) refuseSingle(d *document, dst []byte, sum *Summary) []byte {
	switch {
	case d.invalidJSON:
		sum.noteError(CodeParseError)
		return append(dst, errParse...)
	case d.nonObj:
		sum.noteError(CodeInvalidRequest)
		return appendErrorAnswer(dst, nil, nullID)
	}
	e := s.depthError(d.maxDepth)
	sum.noteError(e.Code)
	return appendErrorAnswer(dst, e, d.single.idOrNull())
}

// readBatch scans a batch into d and checks its limits. When the batch
// cannot run at all (invalid JSON, empty, a limit crossed) it appends the
// one error answer to dst and reports refused.
func (s *Server) readBatch(req []byte, d *document, dst []byte, sum *Summary) (out []byte, refused bool) {
	d.batch = true
	d.invalidJSON = !parseDocument(req, d)
	return s.checkBatch(d, dst, sum)
}

// checkBatch checks the limits of the scanned batch d, as readBatch does.
func (s *Server) checkBatch(d *document, dst []byte, sum *Summary) (out []byte, refused bool) {
	if d.invalidJSON {
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

// answerSingle runs the request that readSingle accepted and appends its
// answer, as ProcessSummary does.
func (s *Server) answerSingle(ctx context.Context, d *document, dst []byte, timing *callSampler) []byte {
	return s.answerRequest(ctx, &d.single, dst, timing)
}

// answerRequest runs r, a request that readSingle accepted, and appends
// its answer.
func (s *Server) answerRequest(ctx context.Context, r *request, dst []byte, timing *callSampler) []byte {
	start := len(dst)
	dst, _ = s.answer(ctx, r, dst, timing)
	if len(dst)-start > s.cfg.maxResponseBytes {
		return s.responseTooLarge(r, dst[:start], nil)
	}
	return dst
}

// responseTooLarge answers r, whose answer crossed the response limit,
// with -32003 instead.
func (s *Server) responseTooLarge(r *request, dst []byte, sum *Summary) []byte {
	sum.noteError(CodeResponseTooLarge)
	return appendErrorBodyAnswer(dst, errBodyTooLarge, r.id)
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
// timing, when not nil, draws which calls are timed (see timesCall).
func (s *Server) answer(ctx context.Context, r *request, dst []byte, timing *callSampler) ([]byte, int) {
	if r.invalid {
		return appendErrorBodyAnswer(dst, errBodyInvalid, r.idOrNull()), CodeInvalidRequest
	}
	e := s.lookup(r)
	if e == nil {
		return s.answerUnregistered(ctx, r, dst)
	}
	if t := s.cfg.tracer; t != nil {
		// Only a traced call takes answerTraced's frame: an untraced
		// one keeps its goroutine's stack as shallow as without a tracer.
		if tctx, traced := t.StartCall(ctx, e.name, r.id); traced {
			return s.answerTraced(tctx, r, e, dst, timing)
		}
	}
	dst, code, _ := s.answerCall(ctx, r, e, dst, timing)
	return dst, code
}

// answerCall answers r, a call of the registered method e, as answer
// does, and also returns the error that the call gate or the method
// answered with (nil for success).
func (s *Server) answerCall(ctx context.Context, r *request, e *entry, dst []byte, timing *callSampler) ([]byte, int, error) {
	if s.cfg.gate != nil {
		if err := s.cfg.gate(ctx, e.name); err != nil {
			dst, code := s.refuseCall(r, err, dst)
			return dst, code, err
		}
	}
	start := len(dst)
	dst = appendResultPrefix(dst)
	resultStart := len(dst)
	began := NotTimed
	if s.cfg.observer != nil && s.timesCall(e, timing) {
		began = monotonic()
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
		dst = appendIDMember(dst, r.id)
	}
	if s.cfg.observer != nil {
		d := NotTimed
		if began != NotTimed {
			d = monotonic() - began
		}
		s.observeCall(e, code, d)
	}
	if r.id == nil {
		return dst[:start], code, err
	}
	return dst, code, err
}

// timesCall says whether a call of e is timed: every call of a Blocking
// method, and of the others all or one in the sample, at random
// (WithCallTimingSample): by timing's draw for the calls made one after
// another on one goroutine that passes one, by a draw of their own for the
// others.
func (s *Server) timesCall(e *entry, timing *callSampler) bool {
	n := s.cfg.timingSample
	switch {
	case n <= 1 || e.blocking:
		return true
	case timing != nil:
		return timing.next(n)
	}
	return rand.Uint32()%uint32(n) == 0
}

// observeCall tells the observer of a call of e that ended with code
// after d (NotTimed when it was not timed).
func (s *Server) observeCall(e *entry, code int, d time.Duration) {
	if e.calls != nil {
		e.calls.ObserveCall(code, d)
		return
	}
	s.cfg.observer.ObserveCall(e.name, code, d)
}

// clockBase is what monotonic counts from.
var clockBase = time.Now()

// monotonic reads the monotonic clock alone, which time.Now reads together
// with the wall clock: one read of the clock where time.Now makes two.
func monotonic() time.Duration { return time.Since(clockBase) }

// refuseCall answers a call that the call gate refused with err.
func (s *Server) refuseCall(r *request, err error, dst []byte) ([]byte, int) {
	if err == ErrMethodHidden {
		if r.id == nil {
			return dst, 0
		}
		return appendErrorBodyAnswer(dst, errBodyNotFound, r.id), CodeMethodNotFound
	}
	e := asError(err)
	if r.id == nil {
		return dst, e.Code
	}
	return appendErrorAnswer(dst, e, r.id), e.Code
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
	return appendIDMember(dst, id)
}

// appendErrorBodyAnswer appends an answer with a precomputed error member.
func appendErrorBodyAnswer(dst, body, id []byte) []byte {
	if id == nil {
		id = nullID
	}
	dst = append(dst, responsePrefix...)
	dst = append(dst, body...)
	return appendIDMember(dst, id)
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
