package clientload

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
)

// next returns the call to make after j calls, from the current phase's.
func (r *run) next(j int) *Call {
	calls := *r.calls.Load()
	return &calls[j%len(calls)]
}

// driveOurs dials rpcclient and starts depth goroutines calling CallT.
func driveOurs(ctx context.Context, url string, depth int, r *run, wg *sync.WaitGroup) (func(), error) {
	c, err := dialOurs(ctx, url)
	if err != nil {
		return nil, err
	}
	callers(depth, r, wg, Ours, func(ctx context.Context, call *Call) error {
		if call.isString() {
			s, err := rpcclient.CallT[string](ctx, c, call.Method, call.Args...)
			return cmp.Or(err, check(call, s))
		}
		n, err := rpcclient.CallT[float64](ctx, c, call.Method, call.Args...)
		return cmp.Or(err, check(call, n))
	})
	return c.Close, nil
}

// callers starts depth goroutines, each making one call at a time with
// do, starting at a different call, until the run stops; the client is
// named name in errors.
func callers(depth int, r *run, wg *sync.WaitGroup, name string, do func(context.Context, *Call) error) {
	ctx := context.Background() // never ends: a call waits for its answer alone
	for first := range depth {
		wg.Go(func() {
			for j := first; !r.stop.Load(); j++ {
				call := r.next(j)
				if err := do(ctx, call); err != nil {
					r.fail(fmt.Errorf("clientload: %s: %s: %w", name, call.Method, err))
					return
				}
				r.answered.Add(1)
			}
		})
	}
}

func dialOurs(ctx context.Context, url string) (*rpcclient.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := rpcclient.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("clientload: %w", err)
	}
	return c, nil
}

// driveOursGo dials rpcclient and starts one goroutine keeping depth calls
// in flight with Go.
func driveOursGo(ctx context.Context, url string, depth int, r *run, wg *sync.WaitGroup) (func(), error) {
	c, err := dialOurs(ctx, url)
	if err != nil {
		return nil, err
	}
	wg.Go(func() { goLoop(c, depth, r) })
	return c.Close, nil
}

// goLoop starts depth calls with GoCall, then starts the next call each
// time one comes back, until the run stops. Each call decodes into a result
// slot of its type, free again once the call came back.
func goLoop(c *rpcclient.Client, depth int, r *run) {
	ctx := context.Background()
	done := make(chan *rpcclient.AsyncCall, depth)
	byMethod := map[string]*Call{}
	for _, call := range *r.calls.Load() {
		byMethod[call.Method] = &call
	}
	numbers, strs := make([]float64, depth), make([]string, depth)
	freeNumbers, freeStrs := make([]*float64, depth), make([]*string, depth)
	for i := range depth {
		freeNumbers[i], freeStrs[i] = &numbers[i], &strs[i]
	}
	j := 0
	// The calls that came back are started again: nothing is allocated per
	// call.
	spare := make([]*rpcclient.AsyncCall, 0, depth)
	for range depth {
		spare = append(spare, &rpcclient.AsyncCall{Done: done})
	}
	start := func() {
		call := r.next(j)
		j++
		a := spare[len(spare)-1]
		spare = spare[:len(spare)-1]
		a.Method = call.Method
		if call.isString() {
			p := freeStrs[len(freeStrs)-1]
			freeStrs, *p = freeStrs[:len(freeStrs)-1], ""
			a.Result = p
		} else {
			p := freeNumbers[len(freeNumbers)-1]
			freeNumbers, *p = freeNumbers[:len(freeNumbers)-1], 0
			a.Result = p
		}
		c.GoCall(ctx, a, call.Args...)
	}
	for range depth {
		start()
	}
	for {
		// A call that came back is taken without waiting on quit too: a
		// select of two channels locks both.
		var a *rpcclient.AsyncCall
		select {
		case a = <-done:
		default:
			select {
			case a = <-done:
			case <-r.quit:
				return
			}
		}
		err := a.Error
		if err == nil {
			call := byMethod[a.Method]
			switch p := a.Result.(type) {
			case *float64:
				err = check(call, *p)
				freeNumbers = append(freeNumbers, p)
			case *string:
				err = check(call, *p)
				freeStrs = append(freeStrs, p)
			}
		}
		if err != nil {
			r.fail(fmt.Errorf("clientload: ours_go: %s: %w", a.Method, err))
			return
		}
		r.answered.Add(1)
		spare = append(spare, a)
		if r.stop.Load() {
			return
		}
		start()
	}
}

// driveGeth dials go-ethereum's client and starts depth goroutines calling
// CallContext.
func driveGeth(ctx context.Context, url string, depth int, r *run, wg *sync.WaitGroup) (func(), error) {
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := rpc.DialContext(dctx, url)
	if err != nil {
		return nil, fmt.Errorf("clientload: go-ethereum: %w", err)
	}
	callers(depth, r, wg, Geth, func(ctx context.Context, call *Call) error {
		var n float64
		var s string
		if call.isString() {
			return cmp.Or(c.CallContext(ctx, &s, call.Method, call.Args...), check(call, s))
		}
		return cmp.Or(c.CallContext(ctx, &n, call.Method, call.Args...), check(call, n))
	})
	return c.Close, nil
}
