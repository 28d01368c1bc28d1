package upstream

// tracing.go carries the trace context of a forwarded call to the server
// it goes to.

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
)

// traceContext is how the trace context travels: W3C Trace Context's
// traceparent and tracestate headers.
var traceContext propagation.TraceContext

// injectTraceContext sets the traceparent (and tracestate) of the span in
// ctx on h, when ctx holds a valid one: on each HTTP request, the span of
// the forwarded call (or, for a batch of several, of the request that
// carried them); on a WebSocket handshake, the span of the call whose
// dial opened the connection. Without a span it sets nothing.
func injectTraceContext(ctx context.Context, h http.Header) {
	traceContext.Inject(ctx, propagation.HeaderCarrier(h))
}
