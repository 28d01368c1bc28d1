package clientload

import (
	"cmp"
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
)

// next returns the call to make after j calls, from the current phase's.
func (r *run) next(j int) *Call {
	calls := *r.calls.Load()
	return &calls[j%len(calls)]
}

// driveOurs dials rpcclient and starts depth goroutines calling CallT.
func driveOurs(ctx context.Context, url string, depth int, r *run) (func(), error) {
	c, err := rpcclient.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("clientload: %w", err)
	}
	callers(depth, r, Ours, func(ctx context.Context, _ int, call *Call) error {
		if call.isString() {
			s, err := rpcclient.CallT[string](ctx, c, call.Method, call.Args...)
			return cmp.Or(err, check(call, s))
		}
		n, err := rpcclient.CallT[float64](ctx, c, call.Method, call.Args...)
		return cmp.Or(err, check(call, n))
	})
	return c.Close, nil
}

// driveGeth dials go-ethereum's client and starts depth goroutines calling
// CallContext.
func driveGeth(ctx context.Context, url string, depth int, r *run) (func(), error) {
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("clientload: go-ethereum: %w", err)
	}
	callers(depth, r, Geth, func(ctx context.Context, _ int, call *Call) error {
		var n float64
		var s string
		if call.isString() {
			return cmp.Or(c.CallContext(ctx, &s, call.Method, call.Args...), check(call, s))
		}
		return cmp.Or(c.CallContext(ctx, &n, call.Method, call.Args...), check(call, n))
	})
	return c.Close, nil
}

// callers starts depth goroutines, each making one call at a time with
// do (g is the goroutine's number), starting at the g-th call, until the
// run stops; the client is named name in errors.
func callers(depth int, r *run, name string, do func(ctx context.Context, g int, call *Call) error) {
	ctx := context.Background() // never ends: a call waits for its answer alone
	for g := range depth {
		r.Go(func() error {
			for j := g; !r.Stopping(); j++ {
				call := r.next(j)
				if err := do(ctx, g, call); err != nil {
					return fmt.Errorf("clientload: %s: %s: %w", name, call.Method, err)
				}
				r.answered.Add(1)
			}
			return nil
		})
	}
}

// driveOursGo dials rpcclient and starts one goroutine keeping depth calls
// in flight with GoCall.
func driveOursGo(ctx context.Context, url string, depth int, r *run) (func(), error) {
	c, err := rpcclient.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("clientload: %w", err)
	}
	r.Go(func() error { return goLoop(c, depth, r) })
	return c.Close, nil
}

// goLoop starts depth calls with GoCall, then starts the next call each
// time one comes back, until the run stops. The calls that came back are
// started again, and each decodes into a result slot of its type, free
// again once the call came back: nothing is allocated per call.
func goLoop(c *rpcclient.Client, depth int, r *run) error {
	ctx := context.Background()
	done := make(chan *rpcclient.AsyncCall, depth)
	byMethod := map[string]*Call{}
	for _, call := range *r.calls.Load() {
		byMethod[call.Method] = &call
	}
	spare, numbers, strs := make([]*rpcclient.AsyncCall, depth), make([]*float64, depth), make([]*string, depth)
	for i := range depth {
		spare[i], numbers[i], strs[i] = &rpcclient.AsyncCall{Done: done}, new(float64), new(string)
	}
	for j := 0; !r.Stopping(); j++ {
		if j >= depth {
			// A call that came back is taken without waiting on quit too:
			// a select of two channels locks both.
			var a *rpcclient.AsyncCall
			select {
			case a = <-done:
			default:
				select {
				case a = <-done:
				case <-r.Ctx.Done():
					return nil
				}
			}
			err := a.Error
			switch p := a.Result.(type) {
			case *float64:
				err, numbers = cmp.Or(err, check(byMethod[a.Method], *p)), append(numbers, p)
			case *string:
				err, strs = cmp.Or(err, check(byMethod[a.Method], *p)), append(strs, p)
			}
			if err != nil {
				return fmt.Errorf("clientload: ours_go: %s: %w", a.Method, err)
			}
			r.answered.Add(1)
			spare = append(spare, a)
		}
		call := r.next(j)
		a := pop(&spare)
		a.Method = call.Method
		if call.isString() {
			p := pop(&strs)
			*p, a.Result = "", p
		} else {
			p := pop(&numbers)
			*p, a.Result = 0, p
		}
		c.GoCall(ctx, a, call.Args...)
	}
	return nil
}

// pop takes the last element of *s off it.
func pop[T any](s *[]T) T {
	v := (*s)[len(*s)-1]
	*s = (*s)[:len(*s)-1]
	return v
}
