package endpoint

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestCallCollectorCountsOutcomesAndBucketsAsPrometheusDoes(t *testing.T) {
	c := newCallCollector()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	s := c.seriesFor("add")
	if c.seriesFor("add") != s {
		t.Fatal("a second series for the same method")
	}
	s.ObserveCall(0, 500*time.Nanosecond)
	s.ObserveCall(0, time.Microsecond) // on a bound: in that bucket, as le says
	s.ObserveCall(rpccore.CodeInvalidParams, 1500*time.Nanosecond)
	s.ObserveCall(-1, 10*time.Second)  // past every bound: +Inf only
	s.ObserveCall(0, rpccore.NotTimed) // counted, not timed

	if v, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_calls_total", map[string]string{"method": "add", "outcome": "ok"}); v != 3 {
		t.Errorf("ok calls %v, want 3", v)
	}
	if v, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_calls_total",
		map[string]string{"method": "add", "outcome": "invalid_params"}); v != 1 {
		t.Errorf("invalid_params calls %v, want 1", v)
	}
	if v, _ := moduletest.Gather(t, reg, "caddy_jsonrpc_calls_total", map[string]string{"method": "add", "outcome": "error"}); v != 1 {
		t.Errorf("other errors %v, want 1", v)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "caddy_jsonrpc_call_duration_seconds" {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != 4 {
			t.Errorf("count %d, want 4 (the calls timed)", h.GetSampleCount())
		}
		if want := 10 + 3e-6; h.GetSampleSum() < want-1e-9 || h.GetSampleSum() > want+1e-9 {
			t.Errorf("sum %v, want %v", h.GetSampleSum(), want)
		}
		want := map[float64]uint64{1e-6: 2, 5e-6: 3, 5: 3}
		for _, b := range h.GetBucket() {
			if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
				t.Errorf("le %v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
			}
		}
		return
	}
	t.Fatal("no call_duration_seconds family")
}
