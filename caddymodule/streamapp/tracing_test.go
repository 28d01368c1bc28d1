package streamapp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"
)

func TestTracingSpanPerConnectionWithItsCalls(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	global := otel.GetTracerProvider()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetTracerProvider(global)
		// The first provider set stays the delegate of the default global
		// one: shut down, it records nothing more.
		_ = tp.Shutdown(context.Background())
	})

	addr := localAddress(t)
	startApp(t, &App{Listeners: []*StreamListener{{
		Listen: []string{"tcp/" + addr}, ServicesRaw: moduletest.Services("handler_test"),
	}}})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(c, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`+
		`[{"jsonrpc":"2.0","method":"echo","params":["b"],"id":2},{"jsonrpc":"2.0","method":"boom","id":3}]`)
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for range 2 {
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	var spans []sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if spans = rec.Ended(); len(spans) == 4 {
			break
		}
	}
	if len(spans) != 4 {
		t.Fatalf("%d spans, want a connection's and its three calls'", len(spans))
	}
	conn := spans[3]
	if conn.Name() != rpctrace.ConnectionSpanName || conn.Parent().IsValid() {
		t.Fatalf("the last span to end is %q (parent %v), want the connection's, a root", conn.Name(), conn.Parent())
	}
	calls := map[string]bool{}
	for _, s := range spans[:3] {
		if s.Parent().SpanID() != conn.SpanContext().SpanID() {
			t.Errorf("%s: parent %v, want the connection's span", s.Name(), s.Parent().SpanID())
		}
		for _, kv := range s.Attributes() {
			if kv.Key == "rpc.jsonrpc.request_id" {
				calls[s.Name()+" "+kv.Value.AsString()] = true
			}
		}
	}
	for _, want := range []string{"echo 1", "echo 2", "boom 3"} {
		if !calls[want] {
			t.Errorf("no span for %q; have %v", want, calls)
		}
	}
	for _, kv := range conn.Attributes() {
		if kv.Key == "network.peer.address" && kv.Value.AsString() != c.LocalAddr().String() {
			t.Errorf("network.peer.address %q, want the client's %q", kv.Value.AsString(), c.LocalAddr())
		}
	}
}
