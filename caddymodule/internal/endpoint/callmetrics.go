package endpoint

// callmetrics.go counts calls by method and outcome, and their durations,
// in counters of its own: one atomic add per count, where a Prometheus
// counter and histogram take five between them. A collector turns them
// into caddy_jsonrpc_calls_total and caddy_jsonrpc_call_duration_seconds
// when the registry is scraped.

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// callTimingSample is how many calls of a method that does not block
// share one timing (rpccore.WithCallTimingSample): such a call takes a few
// hundred nanoseconds, and timing each would add about a fifth to it.
// call_duration_seconds holds the calls timed; calls_total counts all.
const callTimingSample = 8

// durationBuckets are the upper bounds of call_duration_seconds, in
// seconds and, as calls are counted, in nanoseconds.
var (
	durationBuckets     = [...]float64{1e-6, 5e-6, 25e-6, 1e-4, 5e-4, 0.0025, 0.01, 0.05, 0.25, 1, 5}
	durationBucketNanos = func() (ns [len(durationBuckets)]uint64) {
		for i, b := range durationBuckets {
			ns[i] = uint64(b * 1e9)
		}
		return ns
	}()
)

// callSeries counts one method's calls. The series of a method are shared
// by every handler that serves it, and live as long as the process, so
// their counts survive reloads.
type callSeries struct {
	method   string
	calls    [len(outcomes)]atomic.Uint64
	buckets  [len(durationBuckets) + 1]atomic.Uint64 // the last one is +Inf
	sumNanos atomic.Uint64
}

// ObserveCall counts a call that ended with code, and its duration d
// unless it was not timed (rpccore.NotTimed, or any d below 0).
func (s *callSeries) ObserveCall(code int, d time.Duration) {
	s.calls[outcomeIndex(code)].Add(1)
	if d < 0 {
		return
	}
	ns := uint64(d)
	i := 0
	for i < len(durationBucketNanos) && ns > durationBucketNanos[i] {
		i++
	}
	s.buckets[i].Add(1)
	s.sumNanos.Add(ns)
}

// callCollector is the collector of every method's callSeries.
type callCollector struct {
	calls, duration *prometheus.Desc

	mu     sync.RWMutex
	series map[string]*callSeries
}

// newCallCollector returns a collector with no series.
func newCallCollector() *callCollector {
	const ns, sub = "caddy", "jsonrpc"
	return &callCollector{
		calls: prometheus.NewDesc(prometheus.BuildFQName(ns, sub, "calls_total"),
			"JSON-RPC calls that reached a registered method, by method and outcome.",
			[]string{"method", "outcome"}, nil),
		duration: prometheus.NewDesc(prometheus.BuildFQName(ns, sub, "call_duration_seconds"),
			"Time spent in registered methods, by method.", []string{"method"}, nil),
		series: map[string]*callSeries{},
	}
}

// seriesFor returns the series of method, made on first use.
func (c *callCollector) seriesFor(method string) *callSeries {
	c.mu.RLock()
	s := c.series[method]
	c.mu.RUnlock()
	if s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s = c.series[method]; s == nil {
		s = &callSeries{method: method}
		c.series[method] = s
	}
	return s
}

// Describe sends the descriptions of the two families.
func (c *callCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.calls
	ch <- c.duration
}

// Collect sends every method's counts by outcome and its histogram.
func (c *callCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, s := range c.series {
		for i, o := range outcomes {
			ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(s.calls[i].Load()),
				s.method, o)
		}
		cumulative := make(map[float64]uint64, len(durationBuckets))
		var count uint64
		for i, b := range durationBuckets {
			count += s.buckets[i].Load()
			cumulative[b] = count
		}
		count += s.buckets[len(durationBuckets)].Load()
		ch <- prometheus.MustNewConstHistogram(c.duration, count, float64(s.sumNanos.Load())/1e9, cumulative,
			s.method)
	}
}
