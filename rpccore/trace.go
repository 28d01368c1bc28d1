package rpccore

// trace.go tells a CallTracer of calls: their start, with the context they
// run in, and their outcome.

import "context"

// CallTracer traces calls: a span per call, for example (package rpctrace
// gives OpenTelemetry's). StartCall is told of each call to a registered
// method or a Forwarder before the call gate decides it: the call's
// context, the method's name and the call's raw id as the client wrote it
// (nil for a notification; it points into the request document and must
// not be kept). It returns the context the call runs in and whether it
// started anything; only then is EndCall told, with that context, the
// error code answered (0 for success) and its message, once the call is
// answered. Calls that name no method the server serves, and invalid
// requests, are not traced. Both must be quick and safe for concurrent
// use; a StartCall that starts nothing should cost nothing.
type CallTracer interface {
	StartCall(ctx context.Context, method string, id []byte) (context.Context, bool)
	EndCall(ctx context.Context, code int, message string)
}

// answerTraced answers r, a call of the registered method e whose span
// the tracer started in ctx, as answer does, and ends the span.
func (s *Server) answerTraced(ctx context.Context, r *request, e *entry, dst []byte, timing *callSampler) ([]byte, int) {
	dst, code, err := s.answerCall(ctx, r, e, dst, timing)
	c, msg := outcome(code, err)
	s.cfg.tracer.EndCall(ctx, c, msg)
	return dst, code
}

// outcome is the error code and message a tracer hears of for a call
// answered with code after err: the code and message of the answer, or
// for a notification, which is not answered, of err. A nil err is success.
func outcome(code int, err error) (int, string) {
	if err == nil {
		return code, ""
	}
	if err == ErrMethodHidden {
		return CodeMethodNotFound, standardMessage(CodeMethodNotFound)
	}
	e := asError(err)
	if e.Message == "" {
		return e.Code, standardMessage(e.Code)
	}
	return e.Code, e.Message
}

// startForwardTrace tells the tracer, if any, of the start of a call that
// a Forwarder takes: it returns the context the call runs in and whether
// the tracer is to hear of its end.
func (s *Server) startForwardTrace(ctx context.Context, method string, id []byte) (context.Context, bool) {
	if s.cfg.tracer == nil {
		return ctx, false
	}
	return s.cfg.tracer.StartCall(ctx, method, id)
}

// endForwardTrace tells the tracer of the end of a forwarded call answered
// with code, refused by the gate with refusal or answered by the Forwarder
// with fwErr.
func (s *Server) endForwardTrace(ctx context.Context, code int, refusal error, fwErr *Error) {
	msg := ""
	switch {
	case refusal != nil:
		code, msg = outcome(code, refusal)
	case fwErr != nil:
		code, msg = outcome(code, fwErr)
	case code != 0:
		msg = standardMessage(code)
	}
	s.cfg.tracer.EndCall(ctx, code, msg)
}
