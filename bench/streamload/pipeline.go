package streamload

// pipeline.go measures calls per second with a fixed number in flight on
// each of a fixed number of connections.

import (
	"context"
	"errors"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

// PipelineConfig describes one pipelined run.
type PipelineConfig struct {
	// Network ("tcp" or "unix") and Addr name the server.
	Network, Addr string
	// Conns is the number of connections.
	Conns int
	// Depth is the number of calls in flight on each connection: a new call
	// is written as soon as an answer comes back, and calls written
	// together go out in one network write.
	Depth int
	// Requests are sent in turn on every connection.
	Requests [][]byte
	// Expect checks every answer.
	Expect wsload.Expect
	// Windows times the run.
	Windows pipeline.Windows
}

// Pipeline runs cfg and returns the calls per second of each window. Any
// wrong answer or failed connection ends it with an error.
func Pipeline(ctx context.Context, cfg PipelineConfig) ([]float64, error) {
	if cfg.Conns < 1 {
		return nil, errors.New("streamload: pipeline needs connections")
	}
	conns, err := DialMany(ctx, cfg.Network, cfg.Addr, cfg.Conns, 16)
	if err != nil {
		return nil, err
	}
	pc := make([]pipeline.Conn, len(conns))
	for i, c := range conns {
		pc[i] = c
	}
	return pipeline.Run(ctx, pipeline.Config{Depth: cfg.Depth, Requests: cfg.Requests, Expect: cfg.Expect.Prepare(),
		Windows: cfg.Windows, Name: "streamload"}, pc, func() { CloseAll(conns) })
}
