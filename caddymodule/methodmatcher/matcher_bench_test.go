package methodmatcher

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

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
	p, err := policy.New(ctx, &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{
		"bench_matcher": {Events: 1 << 30, Window: caddy.Duration(time.Hour), Methods: []string{"echo"}},
	}}, nil, nil, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Release()
	p.Resolve([]string{"echo"})
	m := &MatchMethod{Methods: []string{"eth_call", "ech*", "net_*"}}
	if err := m.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	doc := rpccore.ReadDocument([]byte(body))
	defer doc.Release()
	var caller policy.Caller
	p.Bind(&caller, caddy.NewReplacer(), policy.MonoNow(), true)
	defer caller.Release()
	callCtx := context.Context(&policy.CallerContext{Context: context.Background(), Caller: &caller})
	b.ReportAllocs()
	for b.Loop() {
		if !doc.EveryMethod(m.matches) {
			b.Fatal("no match")
		}
		for range calls {
			if err := p.Gate(callCtx, "echo"); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
}
