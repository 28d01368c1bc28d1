package upstream

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"
)

// traceparent is the W3C traceparent header naming sc.
func traceparent(sc trace.SpanContext) string {
	return fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags())
}

func TestTraceContextReachesTheUpstream(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			up := startServer(t, "a")
			seen := make(chan string, 16) // each request's method and traceparent
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen <- r.Method + " " + r.Header.Get("traceparent")
				up.Config.Handler.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			url := ts.URL
			if scheme == "ws" {
				url = "ws" + strings.TrimPrefix(ts.URL, "http")
			}
			u := provision(t, &Upstream{To: []string{url}, Methods: []string{"*"}})
			s := rpccore.NewServer(rpccore.WithCallTracer(rpctrace.Tracer{}))
			if err := u.RegisterMethods(s); err != nil {
				t.Fatal(err)
			}
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(rec))

			// process runs doc under a request span and returns the
			// traceparents of the call spans it ended, and the request's.
			process := func(doc string) (calls []string, request string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				ctx, span := tp.Tracer("test").Start(ctx, "request")
				before := len(rec.Ended())
				if out := s.Process(ctx, []byte(doc), nil); strings.Contains(string(out), "error") {
					t.Fatalf("%s: %s", doc, out)
				}
				for _, c := range rec.Ended()[before:] {
					calls = append(calls, traceparent(c.SpanContext()))
				}
				span.End()
				return calls, traceparent(span.SpanContext())
			}
			next := func() string {
				t.Helper()
				select {
				case got := <-seen:
					return got
				case <-time.After(5 * time.Second):
					t.Fatal("the upstream got no request")
					return ""
				}
			}

			calls, _ := process(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
			if len(calls) != 1 {
				t.Fatalf("%d call spans, want 1", len(calls))
			}
			if scheme == "ws" {
				// The first call dials: its span is on the handshake, and
				// nothing is on the messages that follow.
				if got, want := next(), "GET "+calls[0]; got != want {
					t.Errorf("handshake with %q, want %q", got, want)
				}
				calls, _ = process(`{"jsonrpc":"2.0","method":"subtract","params":[1,1],"id":2}`)
				if len(calls) != 1 || len(seen) != 0 {
					t.Errorf("%d call spans, %d more requests upstream; want 1 and none", len(calls), len(seen))
				}
				return
			}
			if got, want := next(), "POST "+calls[0]; got != want {
				t.Errorf("forwarded with %q, want the call's span %q", got, want)
			}
			calls, request := process(`[{"jsonrpc":"2.0","method":"subtract","params":[1,1],"id":2},` +
				`{"jsonrpc":"2.0","method":"get_data","id":3}]`)
			if len(calls) != 2 {
				t.Fatalf("%d call spans of a batch of 2, want 2", len(calls))
			}
			if got, want := next(), "POST "+request; got != want {
				t.Errorf("a batch forwarded with %q, want the request's span %q", got, want)
			}
			call(t, s, `{"jsonrpc":"2.0","method":"get_data","id":4}`)
			if got := next(); got != "POST " {
				t.Errorf("a call without a span forwarded with %q, want no traceparent", got)
			}
		})
	}
}
