package caddymodule

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
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
		b.Run(bm.name, func(b *testing.B) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			h := &Handler{ServicesRaw: services("handler_test")}
			if err := h.Provision(ctx); err != nil {
				b.Fatal(err)
			}
			body := strings.NewReader(bm.body)
			r, _ := http.NewRequest(http.MethodPost, "/rpc", body)
			r.Header.Set("Content-Type", "application/json")
			w := &nopWriter{h: make(http.Header)}
			next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.body)))
			for b.Loop() {
				body.Reset(bm.body)
				r.ContentLength = int64(len(bm.body))
				repl := caddy.NewReplacer()
				req := r.WithContext(context.WithValue(context.Background(), caddy.ReplacerCtxKey, repl))
				if err := h.ServeHTTP(w, req, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
