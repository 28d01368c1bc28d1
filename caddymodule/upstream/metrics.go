package upstream

// metrics.go holds the service's Prometheus metrics: forwarded calls by
// upstream, server and outcome, upstream request latency, and whether each
// server is up. The collectors are made once per process and registered on
// the registry of each config Caddy loads, so their counts survive
// reloads.

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// collectors are the process-wide metric families.
var collectors struct {
	once     sync.Once
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	healthy  *prometheus.GaugeVec
}

func initCollectors() {
	const ns, sub = "caddy", "jsonrpc"
	collectors.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "upstream_calls_total",
		Help: "Calls and notifications forwarded to upstream servers, by upstream, server (address; empty " +
			"when none was tried) and outcome: ok, error (the server answered an error), unavailable, " +
			"outcome_unknown, response_too_large, bad_answer.",
	}, []string{"upstream", "address", "outcome"})
	collectors.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: ns, Subsystem: sub, Name: "upstream_request_duration_seconds",
		Help:    "Time of upstream requests (a call or a batch), by upstream and server.",
		Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"upstream", "address"})
	collectors.healthy = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "upstream_healthy",
		Help: "Whether an upstream server is up (1) or marked down (0), by upstream and server.",
	}, []string{"upstream", "address"})
}

// registerCollectors registers the collectors on reg; registering them
// again (a second upstream, or a reload) is not an error.
func registerCollectors(reg prometheus.Registerer) error {
	collectors.once.Do(initCollectors)
	for _, c := range []prometheus.Collector{collectors.calls, collectors.duration, collectors.healthy} {
		if err := reg.Register(c); err != nil {
			if _, already := errors.AsType[prometheus.AlreadyRegisteredError](err); !already {
				return err
			}
		}
	}
	return nil
}

// upstreamMetrics are one upstream service's series.
type upstreamMetrics struct {
	name string
	none [len(outcomeNames)]prometheus.Counter // calls no server was tried for
}

// newUpstreamMetrics resolves the series of the upstream called name.
func newUpstreamMetrics(name string) *upstreamMetrics {
	collectors.once.Do(initCollectors)
	m := &upstreamMetrics{name: name}
	for i, o := range outcomeNames {
		m.none[i] = collectors.calls.WithLabelValues(name, "", o)
	}
	return m
}

// targetMetrics are one server's series.
type targetMetrics struct {
	calls    [len(outcomeNames)]prometheus.Counter
	duration prometheus.Observer
	healthy  prometheus.Gauge
}

// target resolves the series of the server labelled address.
func (m *upstreamMetrics) target(address string) *targetMetrics {
	t := &targetMetrics{
		duration: collectors.duration.WithLabelValues(m.name, address),
		healthy:  collectors.healthy.WithLabelValues(m.name, address),
	}
	for i, o := range outcomeNames {
		t.calls[i] = collectors.calls.WithLabelValues(m.name, address, o)
	}
	return t
}

// count counts a call's outcome at t (nil when no server was tried).
func (m *upstreamMetrics) count(t *target, o outcome) {
	if t == nil {
		m.none[o].Inc()
		return
	}
	t.metrics.calls[o].Inc()
}
