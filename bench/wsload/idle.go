package wsload

// idle.go opens connections that make one call each and then stay idle.

import (
	"context"
	"fmt"
	"sync"
)

// OpenIdle opens n connections to url, parallel at a time, and makes the
// call req on each, checking its answer with expect; then the connections
// sit idle until CloseAll. On an error it closes those it opened.
func OpenIdle(ctx context.Context, url string, n, parallel int, req []byte, expect Expect) ([]*Conn, error) {
	conns, err := DialMany(ctx, url, n, parallel)
	if err != nil {
		return nil, err
	}
	errs := make(chan error, 1)
	next := make(chan *Conn)
	var wg sync.WaitGroup
	for range max(1, min(parallel, n)) {
		wg.Go(func() {
			var buf []byte
			for c := range next {
				if err := callOnce(c, req, expect, buf); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for _, c := range conns {
		next <- c
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		CloseAll(conns)
		return nil, fmt.Errorf("wsload: idle connection's call: %w", err)
	default:
	}
	return conns, nil
}

// callOnce sends req on c and checks the answer.
func callOnce(c *Conn, req []byte, expect Expect, buf []byte) error {
	if err := c.Send(req); err != nil {
		return err
	}
	msg, err := c.ReadMessage(buf)
	if err != nil {
		return err
	}
	return expect.Check(msg)
}
