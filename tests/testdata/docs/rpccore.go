// Package snippet compiles the use of rpccore alone in docs/rpccore.md.
package snippet

import (
	"context"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Subtract returns a - b.
func Subtract(_ context.Context, a, b float64) (float64, error) { return a - b, nil }

// Sum returns the sum of xs.
func Sum(_ context.Context, xs []float64) (float64, error) {
	total := 0.0
	for _, x := range xs {
		total += x
	}
	return total, nil
}

func answer(ctx context.Context, request, buf []byte) ([]byte, error) {
	// snippet
	return out, err
}

var _ = answer
