package endpoint

// metrics.go holds the Prometheus metrics of every jsonrpc handler: calls by
// method and outcome, call latency, batch sizes and documents by outcome
// (package policy has the calls refused by rate limits).
// The collectors are made once per process and registered on the registry
// of each config Caddy loads, so their counts survive reloads.

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// outcomes are the values of the outcome label: a bounded set whatever
// codes methods choose.
var outcomes = [...]string{"ok", "parse_error", "invalid_request", "method_not_found", "invalid_params",
	"internal_error", "response_too_large", "error"}

// outcomeIndex maps a JSON-RPC error code (0 for success) to its outcome.
func outcomeIndex(code int) int {
	switch code {
	case 0:
		return 0
	case rpccore.CodeParseError:
		return 1
	case rpccore.CodeInvalidRequest:
		return 2
	case rpccore.CodeMethodNotFound:
		return 3
	case rpccore.CodeInvalidParams:
		return 4
	case rpccore.CodeInternalError:
		return 5
	case rpccore.CodeResponseTooLarge:
		return 6
	}
	return 7
}

// collectors are the process-wide metric families.
var collectors struct {
	once      sync.Once
	calls     *callCollector // calls by method and outcome, and their durations
	batchSize prometheus.Histogram
	documents *prometheus.CounterVec
	resumes   *prometheus.CounterVec
}

func initCollectors() {
	const ns, sub = "caddy", "jsonrpc"
	collectors.calls = newCallCollector()
	collectors.batchSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: ns, Subsystem: sub, Name: "batch_size",
		Help:    "Items per JSON-RPC batch.",
		Buckets: []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000},
	})
	collectors.documents = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "requests_total",
		Help: "JSON-RPC request documents (single requests or batches) processed, by the outcome of their " +
			"first error (ok when none). Unknown methods are counted here as method_not_found.",
	}, []string{"outcome"})
	collectors.resumes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "subscription_resumes_total",
		Help: "Subscriptions that asked to resume from a position, by outcome: recovered (every missed " +
			"notification was sent) or not_recovered (the history no longer held them).",
	}, []string{"outcome"})
}

// registerCollectors registers the collectors on reg. Registering them
// again (a second handler in the same config) is not an error.
func registerCollectors(reg prometheus.Registerer) error {
	collectors.once.Do(initCollectors)
	if err := conf.Register(reg, collectors.calls, collectors.batchSize, collectors.documents,
		collectors.resumes); err != nil {
		return err
	}
	return policy.RegisterCollectors(reg)
}

// Metrics observes one handler's calls. Each method's series are resolved
// once, as the method is registered (ObserverFor), so a call costs no label
// lookup.
type Metrics struct {
	documents [len(outcomes)]prometheus.Counter
}

// newMetrics returns the metrics of a handler.
func newMetrics() *Metrics {
	collectors.once.Do(initCollectors)
	m := &Metrics{}
	for i, o := range outcomes {
		m.documents[i] = collectors.documents.WithLabelValues(o)
	}
	return m
}

// ObserverFor returns the series of one method.
func (m *Metrics) ObserverFor(method string) rpccore.CallObserver {
	return collectors.calls.seriesFor(method)
}

// ObserveCall counts a call of a method that has no series of its own,
// which ObserverFor gives every method.
func (m *Metrics) ObserveCall(method string, code int, d time.Duration) {
	collectors.calls.seriesFor(method).ObserveCall(code, d)
}

// ObserveDocument counts a processed document and its batch size.
func (m *Metrics) ObserveDocument(sum *rpccore.Summary) {
	m.documents[outcomeIndex(sum.ErrorCode)].Inc()
	if sum.BatchSize > 0 {
		collectors.batchSize.Observe(float64(sum.BatchSize))
	}
}

// Interface guards
var _ rpccore.MethodObserver = (*Metrics)(nil)
