package httphandler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// traced is a provider that samples and records every span.
func traced() (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(rec)), rec
}

// postTraced posts body to h under a request span of tp, as Caddy's
// tracing handler would, and returns the spans of its calls and the
// request's span.
func postTraced(t *testing.T, h *Handler, body string) ([]sdktrace.ReadOnlySpan, trace.SpanContext) {
	t.Helper()
	tp, rec := traced()
	ctx, span := tp.Tracer("test").Start(context.Background(), "POST /rpc", trace.WithSpanKind(trace.SpanKindServer))
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/rpc", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if _, _, err := serve(t, h, r); err != nil {
		t.Fatalf("ServeHTTP: %v", err)
	}
	span.End()
	ended := rec.Ended()
	return ended[:len(ended)-1], span.SpanContext()
}

// attrsOf returns a span's attributes by key.
func attrsOf(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// checkCallSpan checks that s is the span of a call of method with id
// (none: a notification) under parent.
func checkCallSpan(t *testing.T, s sdktrace.ReadOnlySpan, parent trace.SpanContext, method, id string) {
	t.Helper()
	if s.Name() != method || s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span %q of kind %v, want %q of kind server", s.Name(), s.SpanKind(), method)
	}
	if s.Parent().SpanID() != parent.SpanID() || s.SpanContext().TraceID() != parent.TraceID() {
		t.Errorf("%s: parent %v in trace %v, want %v in %v", method, s.Parent().SpanID(), s.SpanContext().TraceID(),
			parent.SpanID(), parent.TraceID())
	}
	a := attrsOf(s)
	if a["rpc.system"].AsString() != "jsonrpc" || a["rpc.method"].AsString() != method ||
		a["rpc.jsonrpc.version"].AsString() != "2.0" {
		t.Errorf("%s: attributes %v", method, s.Attributes())
	}
	got, ok := a["rpc.jsonrpc.request_id"]
	switch {
	case id == "none" && ok:
		t.Errorf("%s: a notification has request_id %q", method, got.AsString())
	case id != "none" && got.AsString() != id:
		t.Errorf("%s: request_id %q, want %q", method, got.AsString(), id)
	}
}

func TestTracingSpanPerCall(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	spans, parent := postTraced(t, h, `{"jsonrpc":"2.0","method":"echo","params":["hi"],"id":1}`)
	if len(spans) != 1 {
		t.Fatalf("%d call spans, want 1", len(spans))
	}
	checkCallSpan(t, spans[0], parent, "echo", "1")
	if spans[0].Status().Code != codes.Unset {
		t.Errorf("status %v, want unset", spans[0].Status())
	}
}

func TestTracingSpanPerCallOfABatch(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	spans, parent := postTraced(t, h, `[{"jsonrpc":"2.0","method":"echo","params":["a"],"id":"a"},`+
		`{"jsonrpc":"2.0","method":"echo","params":["b"],"id":2},{"jsonrpc":"2.0","method":"whoami","id":null}]`)
	if len(spans) != 3 {
		t.Fatalf("%d call spans, want 3", len(spans))
	}
	ids := map[string]bool{}
	for _, s := range spans {
		id := attrsOf(s)["rpc.jsonrpc.request_id"].AsString()
		checkCallSpan(t, s, parent, s.Name(), id)
		ids[s.Name()+" "+id] = true
	}
	for _, want := range []string{"echo a", "echo 2", "whoami "} {
		if !ids[want] {
			t.Errorf("no span for %q; have %v", want, ids)
		}
	}
}

func TestTracingErrorAndNotification(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	spans, parent := postTraced(t, h, `{"jsonrpc":"2.0","method":"boom","id":7}`)
	if len(spans) != 1 {
		t.Fatalf("%d call spans, want 1", len(spans))
	}
	checkCallSpan(t, spans[0], parent, "boom", "7")
	a := attrsOf(spans[0])
	if a["rpc.jsonrpc.error_code"].AsInt64() != rpccore.CodeInternalError || a["rpc.jsonrpc.error_message"].AsString() != "Internal error" {
		t.Errorf("error attributes %v", spans[0].Attributes())
	}
	if st := spans[0].Status(); st.Code != codes.Error || st.Description != "Internal error" {
		t.Errorf("status %v, want Error", st)
	}
	spans, parent = postTraced(t, h, `{"jsonrpc":"2.0","method":"echo","params":["n"]}`)
	if len(spans) != 1 {
		t.Fatalf("%d call spans of a notification, want 1", len(spans))
	}
	checkCallSpan(t, spans[0], parent, "echo", "none")
}

func TestTracingWebSocketCallsAreChildrenOfTheUpgrade(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	tp, rec := traced()
	upgrades := make(chan trace.SpanContext, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// As otelhttp does: the request's span ends when the handler
		// returns, which for an upgrade is before the calls.
		ctx, span := tp.Tracer("test").Start(r.Context(), "GET /rpc")
		defer span.End()
		upgrades <- span.SpanContext()
		_ = h.ServeHTTP(w, r.WithContext(ctx), nil)
	}))
	t.Cleanup(ts.Close)
	c, _, err := dialWS(t, "ws"+strings.TrimPrefix(ts.URL, "http")+"/rpc", nil)
	if err != nil {
		t.Fatal(err)
	}
	upgrade := <-upgrades
	roundTrip(t, c, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	roundTrip(t, c, `[{"jsonrpc":"2.0","method":"echo","params":["b"],"id":2},{"jsonrpc":"2.0","method":"echo","params":["c"],"id":3}]`)
	var calls []sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		calls = calls[:0]
		for _, s := range rec.Ended() {
			if s.Name() == "echo" {
				calls = append(calls, s)
			}
		}
		if len(calls) == 3 {
			break
		}
	}
	if len(calls) != 3 {
		t.Fatalf("%d call spans, want 3", len(calls))
	}
	for i, s := range calls {
		checkCallSpan(t, s, upgrade, "echo", attrsOf(s)["rpc.jsonrpc.request_id"].AsString())
		if id := attrsOf(s)["rpc.jsonrpc.request_id"].AsString(); id != string(rune('1'+i)) {
			t.Errorf("span %d has request_id %q", i, id)
		}
	}
}

func TestTracingBehindCaddysTracingHandler(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	tr := &tracing.Tracing{SpanName: "jsonrpc request"}
	if err := tr.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer tr.Cleanup()
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	// A method that tells the span it runs in and that span's parent.
	err := h.ep.Server.Register("span", rpccore.Func0(func(ctx context.Context) ([]string, error) {
		s, ok := trace.SpanFromContext(ctx).(sdktrace.ReadOnlySpan)
		if !ok {
			return nil, nil
		}
		return []string{s.Name(), s.Parent().SpanID().String(), s.SpanContext().TraceID().String()}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(`{"jsonrpc":"2.0","method":"span","id":1}`))
	r.Header.Set("Content-Type", "application/json")
	repl := caddy.NewReplacer()
	r = r.WithContext(context.WithValue(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl),
		caddyhttp.VarsCtxKey, map[string]any{}))
	w := httptest.NewRecorder()
	var vars map[string]any
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		vars = r.Context().Value(caddyhttp.VarsCtxKey).(map[string]any)
		return h.ServeHTTP(w, r, nil)
	})
	if err := tr.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","result":["span","` + vars["span_id"].(string) + `","` + vars["trace_id"].(string) + `"],"id":1}`
	if got := w.Body.String(); got != want {
		t.Errorf("got %s, want %s (the span of the call, a child of Caddy's span)", got, want)
	}
}

// BenchmarkServeHTTPTraced is BenchmarkServeHTTP's call and batch under a
// sampled request span of an SDK provider that exports nothing: the cost
// of a span per call.
func BenchmarkServeHTTPTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	ctx, span := tp.Tracer("bench").Start(context.Background(), "POST /rpc")
	defer span.End()
	call := `{"jsonrpc":"2.0","method":"echo","params":["Foo"],"id":5}`
	b.Run("call", func(b *testing.B) { benchmarkServeHTTP(b, ctx, call, false) })
	batch := "[" + strings.Repeat(call+",", 9) + call + "]"
	b.Run("batch10", func(b *testing.B) { benchmarkServeHTTP(b, ctx, batch, false) })
}
