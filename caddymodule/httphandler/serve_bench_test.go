package httphandler

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
)

// nopWriter is a ResponseWriter that keeps nothing.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *nopWriter) WriteHeader(int)             {}

func BenchmarkServeHTTP(b *testing.B) {
	for _, bm := range []struct{ name, body string }{
		{"call", `{"jsonrpc":"2.0","method":"echo","params":["Foo"],"id":5}`},
		{"batch10", "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"echo","params":["Foo"],"id":5},`, 9) +
			`{"jsonrpc":"2.0","method":"echo","params":["Foo"],"id":5}]`},
	} {
		for _, limited := range []bool{false, true} {
			name := bm.name
			if limited {
				name += "/rate_limit"
			}
			b.Run(name, func(b *testing.B) { benchmarkServeHTTP(b, context.Background(), bm.body, limited) })
		}
	}
}

// benchmarkServeHTTP serves body in requests of context parent, through
// one rate limit zone keyed by the client's address when limited.
func benchmarkServeHTTP(b *testing.B, parent context.Context, body string, limited bool) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{ServicesRaw: services("handler_test")}
	if limited {
		h.RateLimit = &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{"bench_serve": {
			Events: 1 << 30, Window: caddy.Duration(time.Hour), Costs: []policy.RateLimitCost{{Method: "big", Cost: 2}}}}}
	}
	if err := h.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	reader := strings.NewReader(body)
	r, _ := http.NewRequest(http.MethodPost, "/rpc", reader)
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = "192.0.2.1:1234"
	w := &nopWriter{h: make(http.Header)}
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		reader.Reset(body)
		r.ContentLength = int64(len(body))
		repl := caddy.NewReplacer()
		req := r.WithContext(context.WithValue(parent, caddy.ReplacerCtxKey, repl))
		repl.Map(func(key string) (any, bool) { // what Caddy's server gives every request
			if key == "http.request.remote.host" {
				return "192.0.2.1", true
			}
			return nil, false
		})
		if err := h.ServeHTTP(w, req, next); err != nil {
			b.Fatal(err)
		}
	}
}
