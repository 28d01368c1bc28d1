package rpctrace_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"
)

// recorded returns a provider that samples everything and records the
// spans that end.
func recorded() (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(rec)), rec
}

// server is the demo service with the Tracer, and a method that fails.
func server(t testing.TB) *rpccore.Server {
	s := rpccore.NewServer(rpccore.WithCallTracer(rpctrace.Tracer{}))
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	err := s.Register("fail", rpccore.Func0(func(context.Context) (int, error) {
		return 0, &rpccore.Error{Code: -32042, Message: "out of luck"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// process runs req under a parent span of tp, which it ends, and returns
// the spans ended under it, the parent last.
func process(t *testing.T, s *rpccore.Server, req string) ([]sdktrace.ReadOnlySpan, trace.SpanContext) {
	tp, rec := recorded()
	ctx, parent := tp.Tracer("test").Start(context.Background(), "POST /rpc")
	s.Process(ctx, []byte(req), nil)
	parent.End()
	spans := rec.Ended()
	if len(spans) == 0 || spans[len(spans)-1].Name() != "POST /rpc" {
		t.Fatalf("the parent span did not end last: %v", spans)
	}
	return spans[:len(spans)-1], parent.SpanContext()
}

func TestSpanOfACall(t *testing.T) {
	spans, parent := process(t, server(t), `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if s.Name() != "subtract" || s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span %q of kind %v, want \"subtract\" of kind server", s.Name(), s.SpanKind())
	}
	if s.Parent().SpanID() != parent.SpanID() || s.SpanContext().TraceID() != parent.TraceID() {
		t.Errorf("parent %v, want the request's span %v", s.Parent().SpanID(), parent.SpanID())
	}
	a := attrs(s)
	for k, want := range map[attribute.Key]string{"rpc.system": "jsonrpc", "rpc.method": "subtract",
		"rpc.jsonrpc.version": "2.0", "rpc.jsonrpc.request_id": "1"} {
		if got := a[k].Emit(); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, ok := a["rpc.jsonrpc.error_code"]; ok {
		t.Errorf("a call that succeeded has an error code")
	}
	if s.Status().Code != codes.Unset {
		t.Errorf("status %v, want unset", s.Status())
	}
	if s.InstrumentationScope().Name != rpctrace.ScopeName {
		t.Errorf("scope %q, want %q", s.InstrumentationScope().Name, rpctrace.ScopeName)
	}
}

func TestSpansOfABatch(t *testing.T) {
	spans, parent := process(t, server(t), `[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"a"},`+
		`{"jsonrpc":"2.0","method":"get_data","id":null},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`)
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	ids := map[string]string{}
	for _, s := range spans {
		if s.Parent().SpanID() != parent.SpanID() {
			t.Errorf("%s: parent %v, want the request's span", s.Name(), s.Parent().SpanID())
		}
		id, ok := attrs(s)["rpc.jsonrpc.request_id"]
		if !ok {
			ids[s.Name()] = "(none)"
			continue
		}
		ids[s.Name()] = id.AsString()
	}
	want := map[string]string{"sum": "a", "get_data": "", "notify_hello": "(none)"}
	for name, id := range want {
		if ids[name] != id {
			t.Errorf("%s: request_id %q, want %q", name, ids[name], id)
		}
	}
}

func TestSpanOfAnError(t *testing.T) {
	spans, _ := process(t, server(t), `{"jsonrpc":"2.0","method":"fail","id":7}`)
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	a := attrs(spans[0])
	if got := a["rpc.jsonrpc.error_code"].AsInt64(); got != -32042 {
		t.Errorf("error_code %d, want -32042", got)
	}
	if got := a["rpc.jsonrpc.error_message"].AsString(); got != "out of luck" {
		t.Errorf("error_message %q, want %q", got, "out of luck")
	}
	if st := spans[0].Status(); st.Code != codes.Error || st.Description != "out of luck" {
		t.Errorf("status %v, want Error \"out of luck\"", st)
	}
}

func TestNoSpanWithoutASampledParent(t *testing.T) {
	s := server(t)
	req := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	// A provider that drops the request's span but would sample its
	// children, were they started.
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(dropNamed("POST /rpc")), sdktrace.WithSpanProcessor(rec))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "POST /rpc")
	s.Process(ctx, req, nil)
	parent.End()
	s.Process(context.Background(), req, nil)
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans, want none", n)
	}
}

// dropNamed is a sampler that drops the spans of its name and samples
// the others.
type dropNamed string

func (d dropNamed) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	if p.Name == string(d) {
		return sdktrace.SamplingResult{Decision: sdktrace.Drop}
	}
	return sdktrace.SamplingResult{Decision: sdktrace.RecordAndSample}
}

func (d dropNamed) Description() string { return "dropNamed" }

func TestStartCallWithoutParentCostsNothing(t *testing.T) {
	ctx := context.WithValue(context.Background(), struct{}{}, 1)
	var tr rpctrace.Tracer
	allocs := testing.AllocsPerRun(1000, func() {
		got, ok := tr.StartCall(ctx, "add", []byte("1"))
		if ok || got != ctx {
			t.Fatal("a call without a parent span was traced")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call without a parent span, want 0", allocs)
	}
}

func TestIDString(t *testing.T) {
	for id, want := range map[string]string{`1`: "1", `-2.5e3`: "-2.5e3", `"x"`: "x", `"a\"b\u00e9"`: `a"bé`,
		`null`: "", `""`: "", `123456789012345678901234567890`: "123456789012345678901234567890"} {
		if got := rpctrace.IDString([]byte(id)); got != want {
			t.Errorf("IDString(%s) = %q, want %q", id, got, want)
		}
	}
}

func TestContextWithSpanOf(t *testing.T) {
	tp, _ := recorded()
	src, span := tp.Tracer("test").Start(context.Background(), "upgrade")
	span.End() // the request ends before the connection's calls
	dst := context.WithValue(context.Background(), struct{}{}, 1)
	got := rpctrace.ContextWithSpanOf(dst, src)
	if !trace.SpanContextFromContext(got).Equal(span.SpanContext()) || got.Value(struct{}{}) != 1 {
		t.Errorf("the span or the values of dst were lost")
	}
	if rpctrace.ContextWithSpanOf(dst, context.Background()) != dst {
		t.Errorf("without a span in src, dst is not returned unchanged")
	}
}

func TestConnectionSpanIsTheParentOfItsCalls(t *testing.T) {
	tp, rec := recorded()
	s := server(t)
	ctx, conn := rpctrace.StartConnection(context.Background(), tp, "tcp", "192.0.2.1:4242")
	s.Process(ctx, []byte(`{"jsonrpc":"2.0","method":"get_data","id":1}`), nil)
	conn.End()
	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	c := spans[1]
	if c.Name() != rpctrace.ConnectionSpanName || c.SpanKind() != trace.SpanKindServer || c.Parent().IsValid() {
		t.Errorf("connection span %q of kind %v, parent %v", c.Name(), c.SpanKind(), c.Parent())
	}
	a := attrs(c)
	if a["network.transport"].AsString() != "tcp" || a["network.peer.address"].AsString() != "192.0.2.1:4242" {
		t.Errorf("connection attributes %v", c.Attributes())
	}
	if spans[0].Parent().SpanID() != c.SpanContext().SpanID() {
		t.Errorf("the call's parent is %v, want the connection's span", spans[0].Parent().SpanID())
	}
}

func TestConnectionUntracedKeepsNothing(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, 1)
	// The global provider of a program that set none.
	got, span := rpctrace.StartConnection(ctx, otel.GetTracerProvider(), "tcp", "192.0.2.1:4242")
	if got != ctx {
		t.Error("a connection that is not traced got a context of its own, which it would keep while open")
	}
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Error("a connection that is not traced got a span")
	}
	span.End()
}

// BenchmarkTracedCall measures a call of a server without a tracer
// ("none"), and of one with the Tracer: under no span ("off", the cost of
// looking for one) and under a sampled span of an SDK provider that
// records but exports nothing ("on", the cost of a span per call).
func BenchmarkTracedCall(b *testing.B) {
	plain := rpccore.NewServer()
	if err := demo.Register(plain); err != nil {
		b.Fatal(err)
	}
	s := server(b)
	req := []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	traced, parent := tp.Tracer("bench").Start(context.Background(), "request")
	defer parent.End()
	// A context a few values deep, as a request's is.
	untraced := context.Background()
	for i := range 4 {
		untraced = context.WithValue(untraced, i, i)
	}
	for _, bc := range []struct {
		name string
		s    *rpccore.Server
		ctx  context.Context
	}{{"none", plain, untraced}, {"off", s, untraced}, {"on", s, traced}} {
		b.Run(bc.name, func(b *testing.B) {
			dst := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				dst = bc.s.Process(bc.ctx, req, dst[:0])
			}
		})
	}
}
