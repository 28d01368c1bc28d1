package load

// run.go runs the workers: a warm-up, then the timed phase.

import (
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what a run measured.
type Result struct {
	// URL is the target.
	URL string `json:"url"`
	// Proto is the protocol the answers came in, as net/http names it.
	Proto string `json:"proto"`
	// Conns is the number of connections.
	Conns int `json:"conns"`
	// Seconds is the length of the timed phase.
	Seconds float64 `json:"seconds"`
	// Requests is the number of requests answered correctly.
	Requests int64 `json:"requests"`
	// Errors is the number of requests that failed or were answered wrongly.
	Errors int64 `json:"errors"`
	// FirstError describes the first error, if any.
	FirstError string `json:"first_error,omitempty"`
	// RequestsPerSec is Requests divided by Seconds.
	RequestsPerSec float64 `json:"requests_per_s"`
	// CallsPerRequest is the number of JSON-RPC calls in each request.
	CallsPerRequest int `json:"calls_per_request"`
	// CallsPerSec is RequestsPerSec times CallsPerRequest.
	CallsPerSec float64 `json:"calls_per_s"`
	// Latency summarises the latencies of the correct answers.
	Latency Latency `json:"latency"`
}

// Run sends load as cfg describes and reports what it measured. It fails
// only for a config it cannot run; failed requests are counted in Errors.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return Result{}, err
	}
	if err := CheckLoopbackURL(u); err != nil {
		return Result{}, err
	}
	workers := make([]*worker, cfg.Conns)
	for i := range workers {
		workers[i] = &worker{cfg: cfg, url: cfg.URL, client: newClient(cfg, u)}
		defer workers[i].client.CloseIdleConnections()
	}
	if cfg.Warmup > 0 {
		end := time.Now().Add(cfg.Warmup)
		runAll(ctx, workers, func() bool { return ctx.Err() == nil && time.Now().Before(end) }, false)
		for _, w := range workers {
			w.errs, w.firstErr = 0, nil
		}
	}
	start := time.Now()
	runAll(ctx, workers, timedPhase(ctx, cfg, start), true)
	return collect(cfg, workers, time.Since(start)), nil
}

// timedPhase returns the condition that keeps the timed phase going.
func timedPhase(ctx context.Context, cfg Config, start time.Time) func() bool {
	end := start.Add(cfg.Duration)
	var sent atomic.Int64
	return func() bool {
		if ctx.Err() != nil {
			return false
		}
		if cfg.Duration > 0 && !time.Now().Before(end) {
			return false
		}
		return cfg.Requests <= 0 || sent.Add(1) <= cfg.Requests
	}
}

// runAll runs every worker's loop concurrently and waits for them.
func runAll(ctx context.Context, workers []*worker, more func() bool, record bool) {
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() { w.loop(ctx, more, record) })
	}
	wg.Wait()
}

// collect merges the workers' records into a Result.
func collect(cfg Config, workers []*worker, elapsed time.Duration) Result {
	r := Result{URL: cfg.URL, Conns: cfg.Conns, Seconds: elapsed.Seconds(), CallsPerRequest: cfg.CallsPerRequest}
	var lat []time.Duration
	for _, w := range workers {
		lat = append(lat, w.lat...)
		r.Errors += w.errs
		if w.firstErr != nil && r.FirstError == "" {
			r.FirstError = w.firstErr.Error()
		}
		if w.proto != "" {
			r.Proto = w.proto
		}
	}
	r.Requests = int64(len(lat))
	if r.Seconds > 0 {
		r.RequestsPerSec = float64(r.Requests) / r.Seconds
	}
	r.CallsPerSec = r.RequestsPerSec * float64(cfg.CallsPerRequest)
	r.Latency = summarise(lat)
	return r
}
