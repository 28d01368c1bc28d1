package wsload

// many.go opens and closes many connections at once.

import (
	"context"
	"sync"
)

// DialMany opens n connections to url, parallel at a time. On an error it
// closes those it opened.
func DialMany(ctx context.Context, url string, n, parallel int) ([]*Conn, error) {
	conns := make([]*Conn, n)
	errs := make(chan error, 1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(parallel, n)) {
		wg.Go(func() {
			for i := range next {
				c, err := Dial(ctx, url)
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				conns[i] = c
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case err := <-errs:
			errs <- err
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		CloseAll(conns)
		return nil, err
	default:
	}
	return conns, nil
}

// CloseAll closes every connection in conns (nil ones skipped).
func CloseAll(conns []*Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}
