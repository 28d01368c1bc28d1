package httphandler

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/methodmatcher"
)

// BenchmarkMatchedBatch serves a batch of 100 calls with and without a
// jsonrpc_method matcher in front of the handler; the difference, per
// call, is what the matcher costs (its scan replaces the handler's).
func BenchmarkMatchedBatch(b *testing.B) {
	const calls = 100
	body := "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"echo","params":["Foo"],"id":5},`, calls-1) +
		`{"jsonrpc":"2.0","method":"echo","params":["Foo"],"id":5}]`
	for _, matched := range []bool{false, true} {
		name := "handler"
		if matched {
			name = "matcher+handler"
		}
		b.Run(name, func(b *testing.B) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			h := &Handler{ServicesRaw: services("handler_test")}
			if err := h.Provision(ctx); err != nil {
				b.Fatal(err)
			}
			m := &methodmatcher.MatchMethod{Methods: []string{"eth_get*", "net_*", "ech?", "echo"}}
			if err := m.Provision(ctx); err != nil {
				b.Fatal(err)
			}
			src := strings.NewReader(body)
			w := &nopWriter{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				src.Reset(body)
				r, _ := http.NewRequest(http.MethodPost, "/rpc", src)
				r.Header.Set("Content-Type", "application/json")
				r.ContentLength = int64(len(body))
				c := context.WithValue(context.Background(), caddy.ReplacerCtxKey, caddy.NewReplacer())
				r = r.WithContext(context.WithValue(c, caddyhttp.VarsCtxKey, map[string]any{}))
				if matched && !m.Match(r) {
					b.Fatal("no match")
				}
				if err := h.ServeHTTP(w, r, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
		})
	}
}
