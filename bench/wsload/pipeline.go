package wsload

// pipeline.go measures calls per second with a fixed number in flight on
// each of a fixed number of connections.

import (
	"context"
	"errors"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// PipelineConfig describes one pipelined run.
type PipelineConfig struct {
	// URL is the ws:// or wss:// endpoint, on loopback.
	URL string
	// Conns is the number of connections.
	Conns int
	// Depth is the number of calls in flight on each connection: a new call
	// is written as soon as an answer comes back, and calls written
	// together go out in one network write.
	Depth int
	// Requests are sent in turn on every connection.
	Requests [][]byte
	// Expect checks every answer.
	Expect Expect
	// Warmup is spent calling before the first window.
	Warmup time.Duration
	// Window is the length of each timed window; Windows is their number.
	// The windows follow one another on the same connections.
	Window  time.Duration
	Windows int
}

// Pipeline runs cfg and returns the calls per second of each window. Any
// wrong answer or failed connection ends it with an error.
func Pipeline(ctx context.Context, cfg PipelineConfig) ([]float64, error) {
	if cfg.Conns < 1 {
		return nil, errors.New("wsload: pipeline needs connections")
	}
	conns, err := DialMany(ctx, cfg.URL, cfg.Conns, 16)
	if err != nil {
		return nil, err
	}
	pc := make([]pipeline.Conn, len(conns))
	for i, c := range conns {
		pc[i] = c
	}
	w := pipeline.Windows{Warmup: cfg.Warmup, Length: cfg.Window, Count: cfg.Windows}
	return pipeline.Run(ctx, pipeline.Config{Depth: cfg.Depth, Requests: cfg.Requests, Expect: cfg.Expect.Prepare(),
		Windows: w, Name: "wsload"}, pc, func() {
		for _, c := range conns {
			c.Close()
		}
	})
}
