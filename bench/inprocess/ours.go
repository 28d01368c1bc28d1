package inprocess

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"
)

// Ours is rpccore with the demo service, called through Process with a
// reused output buffer.
func Ours() Impl {
	return oursWith("ours", context.Background)
}

// OursTraced is Ours with a span per call: rpctrace's tracer, under a
// sampled request span of OpenTelemetry's SDK, whose spans go to an
// exporter that drops them. It is the cost of tracing every call.
func OursTraced() Impl {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	return oursWith("ours_traced", func() context.Context {
		ctx, _ := tp.Tracer("bench").Start(context.Background(), "request")
		return ctx
	}, rpccore.WithCallTracer(rpctrace.Tracer{}))
}

// oursWith is rpccore with the demo service and opts, its calls made
// under the context newContext returns for each caller.
func oursWith(name string, newContext func() context.Context, opts ...rpccore.Option) Impl {
	s := rpccore.NewServer(opts...)
	if err := demo.Register(s); err != nil {
		panic(err)
	}
	return Impl{
		Name: name,
		NewCaller: func() (Caller, func()) {
			ctx := newContext()
			dst := make([]byte, 0, 8<<10)
			return func(req []byte) []byte {
				out := s.Process(ctx, req, dst[:0])
				// Keep a grown buffer, but write dst only then: callers'
				// variables may share a cache line, and a store on every
				// call would make goroutines contend for it.
				if cap(out) != cap(dst) {
					dst = out
				}
				return out
			}, func() {}
		},
	}
}
