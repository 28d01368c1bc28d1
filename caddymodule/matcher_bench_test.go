package caddymodule

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
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
			m := &MatchMethod{Methods: []string{"eth_get*", "net_*", "ech?", "echo"}}
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

// BenchmarkMatcherPerCall is the matcher's own work per call once the
// body is scanned (the scan the handler reuses): the method patterns
// tried against each call of a batch of 100.
func BenchmarkMatcherPerCall(b *testing.B) {
	const calls = 100
	body := "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"eth_getBalance","params":["0x0"],"id":5},`, calls-1) +
		`{"jsonrpc":"2.0","method":"net_version","id":5}]`
	m := &MatchMethod{Methods: []string{"eth_call", "eth_get*", "net_*"}}
	if err := m.Provision(caddy.Context{}); err != nil {
		b.Fatal(err)
	}
	doc := rpccore.ReadDocument([]byte(body))
	defer doc.Release()
	b.ReportAllocs()
	for b.Loop() {
		if !doc.EveryMethod(m.matches) {
			b.Fatal("no match")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
}

// BenchmarkMatcherAndZonePerCall is what the matcher and one rate-limit
// zone cost each call together, in process: the matcher's patterns tried
// against each call of a scanned batch of 100, and the call gate counting
// each in one zone.
func BenchmarkMatcherAndZonePerCall(b *testing.B) {
	const calls = 100
	body := "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"echo","params":["0x0"],"id":5},`, calls-1) +
		`{"jsonrpc":"2.0","method":"echo","id":5}]`
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{ServicesRaw: services("handler_test"), RateLimit: &RateLimit{Zones: map[string]*RateLimitZone{
		"bench_matcher": {Events: 1 << 30, Window: caddy.Duration(time.Hour), Methods: []string{"echo"}},
	}}}
	if err := h.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	m := &MatchMethod{Methods: []string{"eth_call", "ech*", "net_*"}}
	if err := m.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	doc := rpccore.ReadDocument([]byte(body))
	defer doc.Release()
	var pc policedCall
	h.policy.bind(&pc.caller, caddy.NewReplacer(), monoNow(), true)
	defer pc.caller.release()
	pc.ctx = callerContext{Context: rpccore.WithRequestInfo(context.Background(), &pc.info), caller: &pc.caller}
	callCtx := context.Context(&pc.ctx)
	b.ReportAllocs()
	for b.Loop() {
		if !doc.EveryMethod(m.matches) {
			b.Fatal("no match")
		}
		for range calls {
			if err := h.policy.gate(callCtx, "echo"); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
}
