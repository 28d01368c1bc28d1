package caddymodule

import (
	"context"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// gather returns the value of the series of family name whose labels
// include labels: a counter's value or a histogram's sample count. found
// is false when there is no such series.
func gather(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) (value float64, found bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := make(map[string]string)
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			return seriesValue(m), true
		}
	}
	return 0, false
}

func seriesValue(m *dto.Metric) float64 {
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	if h := m.GetHistogram(); h != nil {
		return float64(h.GetSampleCount())
	}
	return 0
}

func TestMetricsCountCallsByMethodAndOutcome(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{ServicesRaw: services("handler_test")}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	reg := ctx.GetMetricsRegistry()
	okBefore, _ := gather(t, reg, "caddy_jsonrpc_calls_total", map[string]string{"method": "echo", "outcome": "ok"})
	badBefore, _ := gather(t, reg, "caddy_jsonrpc_calls_total",
		map[string]string{"method": "echo", "outcome": "invalid_params"})
	batchesBefore, _ := gather(t, reg, "caddy_jsonrpc_batch_size", nil)
	unknownBefore, _ := gather(t, reg, "caddy_jsonrpc_requests_total", map[string]string{"outcome": "method_not_found"})

	post(t, h, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	post(t, h, `[{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1},{"jsonrpc":"2.0","method":"echo","params":[1],"id":2}]`)
	post(t, h, `{"jsonrpc":"2.0","method":"no_such_method_xyz","id":1}`)

	if v, _ := gather(t, reg, "caddy_jsonrpc_calls_total", map[string]string{"method": "echo", "outcome": "ok"}); v-okBefore != 2 {
		t.Errorf("echo ok: +%v, want +2", v-okBefore)
	}
	if v, _ := gather(t, reg, "caddy_jsonrpc_calls_total",
		map[string]string{"method": "echo", "outcome": "invalid_params"}); v-badBefore != 1 {
		t.Errorf("echo invalid_params: +%v, want +1", v-badBefore)
	}
	if v, _ := gather(t, reg, "caddy_jsonrpc_batch_size", nil); v-batchesBefore != 1 {
		t.Errorf("batch_size samples: +%v, want +1", v-batchesBefore)
	}
	if v, _ := gather(t, reg, "caddy_jsonrpc_requests_total",
		map[string]string{"outcome": "method_not_found"}); v-unknownBefore != 1 {
		t.Errorf("requests method_not_found: +%v, want +1", v-unknownBefore)
	}
	if _, found := gather(t, reg, "caddy_jsonrpc_call_duration_seconds", map[string]string{"method": "echo"}); !found {
		t.Error("no latency series for echo")
	}
	for _, name := range []string{"caddy_jsonrpc_calls_total", "caddy_jsonrpc_call_duration_seconds"} {
		if _, found := gather(t, reg, name, map[string]string{"method": "no_such_method_xyz"}); found {
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
		v, found := gather(t, ctx.GetMetricsRegistry(), "caddy_jsonrpc_calls_total",
			map[string]string{"method": "big", "outcome": "ok"})
		if !found || v <= last {
			t.Errorf("config %d: big ok = %v (found %v), want more than %v", i, v, found, last)
		}
		last = v
		cancel()
	}
}

func TestOutcomeIndexIsBounded(t *testing.T) {
	for code, want := range map[int]string{
		0: "ok", rpccore.CodeParseError: "parse_error", rpccore.CodeInvalidRequest: "invalid_request",
		rpccore.CodeMethodNotFound: "method_not_found", rpccore.CodeInvalidParams: "invalid_params",
		rpccore.CodeInternalError: "internal_error", rpccore.CodeResponseTooLarge: "response_too_large",
		rpccore.CodeServerError: "error", 42: "error", -1: "error",
	} {
		if got := outcomes[outcomeIndex(code)]; got != want {
			t.Errorf("code %d: %s, want %s", code, got, want)
		}
	}
}
