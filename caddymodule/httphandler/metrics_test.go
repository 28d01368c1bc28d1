package httphandler

import (
	"context"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
)

func TestMetricsCountCallsByMethodAndOutcome(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{ServicesRaw: services("handler_test")}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	reg := ctx.GetMetricsRegistry()
	okBefore, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_calls_total", map[string]string{"method": "echo", "outcome": "ok"})
	badBefore, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_calls_total",
		map[string]string{"method": "echo", "outcome": "invalid_params"})
	batchesBefore, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_batch_size", nil)
	unknownBefore, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_requests_total", map[string]string{"outcome": "method_not_found"})

	post(t, h, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	post(t, h, `[{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1},{"jsonrpc":"2.0","method":"echo","params":[1],"id":2}]`)
	post(t, h, `{"jsonrpc":"2.0","method":"no_such_method_xyz","id":1}`)

	if v, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_calls_total", map[string]string{"method": "echo", "outcome": "ok"}); v-okBefore != 2 {
		t.Errorf("echo ok: +%v, want +2", v-okBefore)
	}
	if v, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_calls_total",
		map[string]string{"method": "echo", "outcome": "invalid_params"}); v-badBefore != 1 {
		t.Errorf("echo invalid_params: +%v, want +1", v-badBefore)
	}
	if v, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_batch_size", nil); v-batchesBefore != 1 {
		t.Errorf("batch_size samples: +%v, want +1", v-batchesBefore)
	}
	if v, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_requests_total",
		map[string]string{"outcome": "method_not_found"}); v-unknownBefore != 1 {
		t.Errorf("requests method_not_found: +%v, want +1", v-unknownBefore)
	}
	if _, found := moduletest.Gather(t, reg, "caddy_jsonrpc_call_duration_seconds", map[string]string{"method": "echo"}); !found {
		t.Error("no latency series for echo")
	}
	for _, name := range []string{"caddy_jsonrpc_calls_total", "caddy_jsonrpc_call_duration_seconds"} {
		if _, found := moduletest.Gather(t, reg, name, map[string]string{"method": "no_such_method_xyz"}); found {
			t.Errorf("%s has a series for an unknown method", name)
		}
	}
}

func TestMetricsSurviveReload(t *testing.T) {
	// Each config has a registry of its own; the collectors are shared, so a
	// new config registers them again and their counts carry on.
	var last float64
	for i := range 2 {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		h := &Handler{ServicesRaw: services("handler_test")}
		if err := h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		post(t, h, `{"jsonrpc":"2.0","method":"big","params":[1],"id":1}`)
		v, found := moduletest.Gather(t, ctx.GetMetricsRegistry(), "caddy_jsonrpc_calls_total",
			map[string]string{"method": "big", "outcome": "ok"})
		if !found || v <= last {
			t.Errorf("config %d: big ok = %v (found %v), want more than %v", i, v, found, last)
		}
		last = v
		cancel()
	}
}
