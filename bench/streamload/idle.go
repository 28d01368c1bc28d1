package streamload

// idle.go opens connections that make one call each and then stay idle.

import (
	"context"
	"fmt"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

// OpenIdle opens n connections, parallel at a time, and makes the call req
// on each, checking its answer with expect; then the connections sit idle
// until CloseAll. On an error it closes those it opened.
func OpenIdle(ctx context.Context, network, addr string, n, parallel int, req []byte, expect wsload.Expect) ([]*Conn, error) {
	conns, err := DialMany(ctx, network, addr, n, parallel)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var first error
	next := make(chan *Conn)
	var wg sync.WaitGroup
	for range max(1, min(parallel, n)) {
		wg.Go(func() {
			var buf []byte
			for c := range next {
				err := c.Send(req)
				var line []byte
				if err == nil {
					line, err = c.ReadLine(buf)
				}
				if err == nil {
					err = expect.Check(line)
				}
				if err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, c := range conns {
		next <- c
	}
	close(next)
	wg.Wait()
	if first != nil {
		CloseAll(conns)
		return nil, fmt.Errorf("streamload: idle connection's call: %w", first)
	}
	return conns, nil
}
