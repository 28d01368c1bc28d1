package policy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestRateLimitChecksNameTheZoneAndOption(t *testing.T) {
	ok := func() *RateLimitZone { return &RateLimitZone{Events: 10, Window: caddy.Duration(time.Second)} }
	tests := []struct {
		name string
		edit func(z *RateLimitZone)
		want string
	}{
		{"no events", func(z *RateLimitZone) { z.Events = 0 }, "rate_limit zone z: events: required"},
		{"no window", func(z *RateLimitZone) { z.Window = 0 }, "rate_limit zone z: window: required"},
		{"window too short", func(z *RateLimitZone) { z.Window = 5 }, "window: 5ns is too short for 10 events"},
		{"negative max_keys", func(z *RateLimitZone) { z.MaxKeys = -1 }, "max_keys: must not be negative"},
		{"bad methods pattern", func(z *RateLimitZone) { z.Methods = []string{"[a"} }, "methods: bad pattern"},
		{"bad cost pattern", func(z *RateLimitZone) { z.Costs = []RateLimitCost{{Method: "", Cost: 1}} },
			"cost: empty pattern"},
		{"cost zero", func(z *RateLimitZone) { z.Costs = []RateLimitCost{{Method: "a", Cost: 0}} },
			"cost a: must be greater than zero"},
		{"cost over events", func(z *RateLimitZone) { z.Costs = []RateLimitCost{{Method: "a", Cost: 11}} },
			"cost a: 11 is more than the zone's 10 events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := ok()
			tt.edit(z)
			err := (&RateLimit{Zones: map[string]*RateLimitZone{"z": z}}).Check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to say %q", err, tt.want)
			}
		})
	}
	if err := (&RateLimit{}).Check(); err == nil || !strings.Contains(err.Error(), "rate_limit: no zone") {
		t.Errorf("no zones: %v", err)
	}
	if err := (&RateLimit{Zones: map[string]*RateLimitZone{"z": ok()}}).Check(); err != nil {
		t.Errorf("a good zone: %v", err)
	}
}

func TestRateLimitZoneCostOf(t *testing.T) {
	z := &RateLimitZone{
		Methods: []string{"eth_*", "net_version"},
		Costs:   []RateLimitCost{{Method: "eth_getLogs", Cost: 10}, {Method: "eth_get*", Cost: 2}, {Method: "eth_getLogs", Cost: 99}},
	}
	for method, want := range map[string]int64{
		"eth_getLogs":    10, // the first matching cost applies
		"eth_getBalance": 2,
		"eth_call":       1,
		"net_version":    1,
		"web3_sha3":      0, // not counted
	} {
		if got := z.costOf(method); got != want {
			t.Errorf("costOf(%s) = %d, want %d", method, got, want)
		}
	}
	if got := (&RateLimitZone{}).costOf("anything"); got != 1 {
		t.Errorf("a zone without methods counts every method at 1, got %d", got)
	}
}

func TestRateLimitZoneStoresOutliveAReload(t *testing.T) {
	cfg := &RateLimitZone{Events: 1, Window: caddy.Duration(time.Hour)}
	ctx1, cancel1 := caddy.NewContext(caddy.Context{Context: context.Background()})
	RegisterCollectors(ctx1.GetMetricsRegistry())
	z1, err := newZone(ctx1, "reload_test", cfg, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel2()
	z2, err := newZone(ctx2, "reload_test", cfg, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel1() // the old configuration goes after the new one is provisioned
	z1.release()
	if z1.store != z2.store {
		t.Fatal("the new configuration counts in a store of its own")
	}
	other, err := newZone(ctx2, "reload_test", &RateLimitZone{Events: 2, Window: caddy.Duration(time.Hour)}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.release()
	if other.store == z2.store {
		t.Fatal("a zone of the same name with another rate shares the store")
	}
	z2.release() // the last user: the next configuration starts afresh
	z3, err := newZone(ctx2, "reload_test", cfg, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z3.release()
	if z3.store == z2.store {
		t.Fatal("a zone whose last configuration was cleaned up keeps its store")
	}
}

func TestRateLimitRefusalData(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	RegisterCollectors(ctx.GetMetricsRegistry())
	z, err := newZone(ctx, `data "test"`, &RateLimitZone{Events: 1, Window: caddy.Duration(time.Second)}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := z.refusal(int64(1234*time.Millisecond + 1))
	if e.Code != -32005 || e.Message != "Limit exceeded" {
		t.Errorf("code %d, message %q", e.Code, e.Message)
	}
	if got, want := string(e.Data.(rpccore.RawJSON)), `{"retry_after_ms":1235,"zone":"data \"test\""}`; got != want {
		t.Errorf("data %s, want %s", got, want)
	}
}
