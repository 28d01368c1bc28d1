package rpcclient

// async.go lets one goroutine keep many calls in flight: Go starts a call
// and returns; the call comes back on a channel when it ends, as with
// net/rpc's Client.Go.

import (
	"context"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/pending"
)

// AsyncCall is a call made with Go.
type AsyncCall struct {
	// Method is the method called.
	Method string
	// Result is the pointer the result is decoded into (nil drops it).
	Result any
	// Error is the call's error once it is received from Done: an
	// *rpccore.Error answered, a result that did not decode, or why the
	// call could not complete (as Call's).
	Error error
	// Done receives the call when it ends.
	Done chan *AsyncCall

	mu       sync.Mutex
	finished bool        // finishAsync has taken the call
	stop     func() bool // stops the watch of the call's context
	// kept is the request of the call's last run, for its next: a call
	// started again costs no request from a pool.
	kept *request
}

// Go starts a call of method with args and returns at once. When the call
// ends (its answer came, ctx ended, or it failed as Call fails) its result
// is decoded into result and it is sent on done. done must be buffered,
// with room for every call sent on it and not yet received: a full done
// holds up the calls of the same client that end after it. A nil done
// gets a channel of capacity 1.
func (c *Client) Go(ctx context.Context, done chan *AsyncCall, result any, method string, args ...any) *AsyncCall {
	if done == nil {
		done = make(chan *AsyncCall, 1)
	}
	a := &AsyncCall{Method: method, Result: result, Done: done}
	c.GoCall(ctx, a, args...)
	return a
}

// GoCall is Go for a call whose Method, Result and Done (buffered, as
// Go's done) the caller set: a call received from Done may be started
// again, so that a loop keeping calls in flight allocates nothing for
// them. A call whose ctx has already ended is not sent: it comes back at
// once with ctx's error.
func (c *Client) GoCall(ctx context.Context, a *AsyncCall, args ...any) {
	a.Error, a.finished, a.stop = nil, false, nil
	select {
	case <-ctx.Done():
		// Not sent: an answer could otherwise come back before the
		// context's end is seen, and the call would not fail.
		a.Error = ctx.Err()
		a.Done <- a
		return
	default:
	}
	if c.http != nil {
		c.goHTTP(ctx, a, args)
		return
	}
	kept := a.kept
	a.kept = nil
	r, err := c.openAgain(ctx, kept, a.Method, nil, false)
	if err == nil {
		r.msg, err = appendRequest(r.msg[:0], a.Method, r.call.ID(), args)
		if err != nil {
			c.release(r)
		}
	}
	if err != nil {
		a.Error = err
		a.Done <- a
		return
	}
	// r is this goroutine's until it is sent and detached: the call may be
	// failed meanwhile (the client closing), and is then finished here.
	r.async = a
	id := r.call.ID()
	if ctx.Done() != nil {
		id = append([]byte(nil), id...) // r may be released once detached
	}
	c.send(r)
	if !r.call.Detach() {
		res, errObj, err := r.call.Wait(context.Background())
		c.finish(r, res, errObj, err)
		return
	}
	if ctx.Done() == nil {
		return
	}
	a.mu.Lock()
	if !a.finished {
		a.stop = context.AfterFunc(ctx, func() {
			if c.calls.FailID(id, ctx.Err()) {
				c.finishAsync()
			}
		})
	}
	a.mu.Unlock()
}

// finish completes r's AsyncCall with its answer: the result decoded,
// the request kept for the call's next run, the call sent on its channel.
func (c *Client) finish(r *request, res, errObj []byte, err error) {
	a := r.async
	a.Error = settle(res, errObj, err, a.Result)
	a.mu.Lock()
	a.finished = true
	stop := a.stop
	a.mu.Unlock()
	if stop != nil {
		stop()
	}
	c.keep(r)
	a.kept = r
	a.Done <- a
}

// goHTTP makes a's call over HTTP on a goroutine of its own, with a copy
// of args, so that GoCall's args do not escape.
func (c *Client) goHTTP(ctx context.Context, a *AsyncCall, args []any) {
	copied := append([]any(nil), args...)
	go func() {
		a.Error = c.Call(ctx, a.Result, a.Method, copied...)
		a.Done <- a
	}()
}

// maxFinishedAtOnce bounds the calls finishAsync takes from the table at
// a time, so that their list fits on its stack.
const maxFinishedAtOnce = 64

// finishAsync completes the Async calls the table resolved: it decodes
// their results, releases them and sends each on its channel. Whoever may
// have resolved one calls it: the reader before it may wait for the
// network (or after each message), and every other path that fails calls.
func (c *Client) finishAsync() {
	var stack [maxFinishedAtOnce]*pending.Call
	for {
		done := c.calls.Finished(stack[:0])
		if len(done) == 0 {
			return
		}
		for _, pc := range done {
			res, errObj, err := pc.Answer()
			c.finish(pc.Note.(*request), res, errObj, err)
		}
	}
}
