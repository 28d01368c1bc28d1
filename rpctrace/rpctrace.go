// Package rpctrace traces JSON-RPC calls with OpenTelemetry: Tracer is an
// rpccore.CallTracer that gives each call of an rpccore.Server a span of
// its own, a child of the span in the call's context (an HTTP request's,
// a connection's), named and attributed by OpenTelemetry's semantic
// conventions for RPC (https://opentelemetry.io/docs/specs/semconv/rpc/json-rpc/).
//
// A call whose context holds no span, or one that is not sampled, is not
// traced, and costs one look into its context and no allocation: a server
// with the Tracer set and no tracing in front of it pays next to nothing.
// The child is started with the parent span's own TracerProvider, so the
// calls follow whatever provider started the parent (Caddy's `tracing`
// handler, which does not set the global one, or the global provider of a
// program that does).
package rpctrace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// ScopeName is the instrumentation scope of the spans, the name their
// Tracer is asked for by.
const ScopeName = "github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"

// System is the value of rpc.system on every span.
const System = "jsonrpc"

// Tracer is an rpccore.CallTracer that starts a span of kind server for
// each call whose context holds a sampled span, as that span's child:
// named after the method, with rpc.system "jsonrpc", rpc.method,
// rpc.jsonrpc.version "2.0" and, unless the call is a notification,
// rpc.jsonrpc.request_id (the id as a string: a string id unquoted, a
// number as written, "" for null). A call answered with an error gets
// rpc.jsonrpc.error_code, rpc.jsonrpc.error_message and the status Error.
// The zero Tracer is ready to use: rpccore.WithCallTracer(rpctrace.Tracer{}).
type Tracer struct{}

// StartCall starts the span of a call, as rpccore.CallTracer says: it
// returns ctx unchanged and false when ctx holds no sampled span.
func (Tracer) StartCall(ctx context.Context, method string, id []byte) (context.Context, bool) {
	parent := trace.SpanFromContext(ctx)
	if !parent.SpanContext().IsSampled() {
		return ctx, false
	}
	return startCallSpan(ctx, parent, method, id), true
}

// startCallSpan starts the span of a call under parent. It is a function
// of its own, never inlined, so that StartCall's frame stays small: every
// call of an untraced server passes through StartCall, on goroutines that
// keep the stack they grew (a connection's reader).
//
//go:noinline
func startCallSpan(ctx context.Context, parent trace.Span, method string, id []byte) context.Context {
	attrs := make([]attribute.KeyValue, 3, 4)
	attrs[0] = semconv.RPCSystemKey.String(System)
	attrs[1] = semconv.RPCMethod(method)
	attrs[2] = semconv.RPCJsonrpcVersion("2.0")
	if id != nil {
		attrs = append(attrs, semconv.RPCJsonrpcRequestID(IDString(id)))
	}
	ctx, _ = parent.TracerProvider().Tracer(ScopeName).Start(ctx, method, serverKind, trace.WithAttributes(attrs...))
	return ctx
}

// serverKind is the kind of every span, made once.
var serverKind = trace.WithSpanKind(trace.SpanKindServer)

// EndCall ends the span StartCall put in ctx, with the call's error code
// and message when code is not 0.
func (Tracer) EndCall(ctx context.Context, code int, message string) {
	span := trace.SpanFromContext(ctx)
	if code != 0 {
		span.SetAttributes(semconv.RPCJsonrpcErrorCode(code), semconv.RPCJsonrpcErrorMessage(message))
		span.SetStatus(codes.Error, message)
	}
	span.End()
}

// IDString is the value of rpc.jsonrpc.request_id for the raw id of a
// request, as the semantic conventions ask: a string's contents unescaped,
// a number as written, "" for null.
func IDString(id []byte) string {
	switch {
	case len(id) == 0 || string(id) == "null":
		return ""
	case id[0] == '"' && len(id) >= 2:
		return string(jsontext.AppendUnquote(nil, id[1:len(id)-1]))
	}
	return string(id)
}

// ContextWithSpanOf returns dst carrying the span of src, when src holds a
// sampled one, and dst itself otherwise: how a connection that outlives
// the request that opened it (a WebSocket upgrade) keeps that request's
// span as the parent of its calls.
func ContextWithSpanOf(dst, src context.Context) context.Context {
	span := trace.SpanFromContext(src)
	if !span.SpanContext().IsSampled() {
		return dst
	}
	return trace.ContextWithSpan(dst, span)
}

// ConnectionSpanName is the name of the span StartConnection starts.
const ConnectionSpanName = "jsonrpc connection"

// StartConnection starts the span of a connection that carries calls
// (a raw stream), from tp, with rpc.system "jsonrpc", network.transport
// (tcp, unix) and network.peer.address: the returned context is the one
// to serve the connection with, so that the Tracer makes its calls' spans
// the connection span's children. End the span when the connection ends.
// A provider that samples nothing (the global one of a program that set
// none) makes a span that records nothing, and the calls are not traced:
// StartConnection then returns ctx itself and a no-op span, so that an
// open connection keeps nothing of it.
func StartConnection(ctx context.Context, tp trace.TracerProvider, transport, peerAddr string) (context.Context, trace.Span) {
	spanCtx, span := tp.Tracer(ScopeName).Start(ctx, ConnectionSpanName, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(semconv.RPCSystemKey.String(System), semconv.NetworkTransportKey.String(transport),
			semconv.NetworkPeerAddress(peerAddr)))
	if !span.SpanContext().IsValid() {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return spanCtx, span
}

// Interface guard
var _ rpccore.CallTracer = Tracer{}
