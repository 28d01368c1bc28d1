package streamserve

// geth.go is go-ethereum's IPC server: the five benchmark methods and
// bench_sleep.

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
)

// gethWait holds the method that waits, registered beside the five under
// the same namespace: bench_sleep.
type gethWait struct{}

// Sleep waits ms milliseconds on a timer and returns ms, as the demo's
// sleep does.
func (gethWait) Sleep(ctx context.Context, ms int) (int, error) {
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return ms, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// gethServer returns the server ServeListener runs.
func gethServer() (*rpc.Server, error) {
	s := inprocess.NewGethServer()
	if err := s.RegisterName("bench", gethWait{}); err != nil {
		return nil, err
	}
	return s, nil
}
