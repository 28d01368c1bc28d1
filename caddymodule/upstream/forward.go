package upstream

// forward.go sends the calls rpccore hands over to the servers: in
// batches of at most max_batch, each to the first server that takes it,
// failing over as the outcome allows.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Forward sends calls on to the servers and fills in their answers: the
// calls that want an answer in batches of at most max_batch (a single
// call as a single call), the notifications as notifications, one after
// another; the batches and the notifications at the same time.
func (u *Upstream) Forward(ctx context.Context, calls []rpccore.ForwardedCall) {
	var jobs []*job
	var notes []*rpccore.ForwardedCall
	for i := range calls {
		if calls[i].Notification {
			notes = append(notes, &calls[i])
		} else {
			jobs = append(jobs, &job{call: &calls[i], method: strings.TrimPrefix(calls[i].Method, u.StripPrefix)})
		}
	}
	var chunks [][]*job
	for size := u.maxBatch(); len(jobs) > 0; {
		n := min(size, len(jobs))
		chunks = append(chunks, jobs[:n:n])
		jobs = jobs[n:]
	}
	if len(chunks) == 1 && len(notes) == 0 {
		u.send(ctx, chunks[0])
		return
	}
	var wg sync.WaitGroup
	for _, chunk := range chunks {
		wg.Go(func() { u.send(ctx, chunk) })
	}
	if len(notes) > 0 {
		wg.Go(func() { // one after another, in the batch's order
			for _, n := range notes {
				u.notify(ctx, n)
			}
		})
	}
	wg.Wait()
}

// job is a call on its way, with what happened to it so far.
type job struct {
	call   *rpccore.ForwardedCall
	method string // the name called upstream
	err    error  // the last failure
	sent   bool   // it may have run somewhere
}

// send sends one upstream request's calls to the servers in turn until
// each is answered, and answers the rest with the service's errors.
func (u *Upstream) send(ctx context.Context, jobs []*job) {
	var last *target
	for _, t := range u.order() {
		if len(jobs) == 0 || ctx.Err() != nil {
			break
		}
		if t.isDown() {
			continue
		}
		last = t
		jobs = u.attempt(ctx, t, jobs)
	}
	for _, j := range jobs {
		switch {
		case j.sent:
			j.call.Error = u.failure(CodeOutcomeUnknown, j.err)
			u.metrics.count(last, outcomeUnknown)
		case j.err != nil:
			j.call.Error = u.failure(CodeUnavailable, j.err)
			u.metrics.count(last, outcomeNotSent)
		default:
			j.call.Error = u.failure(CodeUnavailable, errAllDown)
			u.metrics.count(nil, outcomeNotSent)
		}
	}
}

// attempt sends jobs to t as one request and settles the calls it
// answered; it returns the jobs to send to the next server: those t did
// not take, and the idempotent ones whose outcome is unknown.
func (u *Upstream) attempt(ctx context.Context, t *target, jobs []*job) []*job {
	actx, cancel := context.WithTimeout(ctx, u.timeout())
	defer cancel()
	start := time.Now()
	errs := t.do(actx, jobs)
	t.metrics.duration.Observe(time.Since(start).Seconds())
	var retry []*job
	var down error
	for i, j := range jobs {
		err := errs[i]
		v := classify(err, ctx, actx)
		if v.down {
			down = err
		}
		if v.outcome == outcomeUnknown && actx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%s: no answer within the timeout of %v", t.label, u.timeout())
		}
		switch v.outcome {
		case outcomeOK:
		case outcomeError:
			j.call.Error, _ = errors.AsType[*rpccore.Error](err)
		case outcomeNotSent:
			j.err = err
			retry = append(retry, j)
			continue
		case outcomeUnknown:
			j.err, j.sent = err, true
			if ctx.Err() == nil && u.isIdempotent(j.call.Method) {
				retry = append(retry, j)
				continue
			}
			j.call.Error = u.failure(CodeOutcomeUnknown, err)
		case outcomeTooLarge:
			j.call.Error = u.failure(rpccore.CodeResponseTooLarge, err)
		case outcomeBad:
			j.call.Error = u.failure(CodeBadAnswer, err)
		}
		u.metrics.count(t, v.outcome)
	}
	if down != nil {
		t.markDown(u.failDuration(), down)
	}
	return retry
}

// errNoAnswer marks the batch elements the client did not settle.
var errNoAnswer = errors.New("no answer")

// do sends the calls of jobs to the server, one call as a call and more
// as a batch, sets the results of the calls answered with one and returns
// each call's error.
func (t *target) do(ctx context.Context, jobs []*job) []error {
	errs := make([]error, len(jobs))
	c, err := t.clientFor(ctx, false)
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	if len(jobs) == 1 {
		var result rpccore.RawJSON
		call := jobs[0].call
		if errs[0] = c.Call(ctx, &result, jobs[0].method, params(call)...); errs[0] == nil {
			call.Result = result
		}
		return errs
	}
	elems := make([]rpcclient.BatchElem, len(jobs))
	results := make([]rpccore.RawJSON, len(jobs))
	for i, j := range jobs {
		elems[i] = rpcclient.BatchElem{Method: j.method, Args: params(j.call), Result: &results[i], Error: errNoAnswer}
	}
	err = c.BatchCall(ctx, elems)
	for i := range elems {
		switch errs[i] = elems[i].Error; {
		case errs[i] == errNoAnswer && err != nil:
			errs[i] = err // the batch as a whole failed
		case errs[i] == errNoAnswer:
			errs[i] = fmt.Errorf("%w: the batch's answer lacks a call's", rpcclient.ErrBadAnswer)
		case errs[i] == nil:
			jobs[i].call.Result = results[i]
		}
	}
	return errs
}

// params are the arguments that send call's params as the client wrote
// them.
func params(call *rpccore.ForwardedCall) []any {
	if call.Params == nil {
		return nil
	}
	return []any{rpcclient.RawParams(call.Params)}
}

// notify sends a notification to the first server that takes it. Its
// outcome is only counted and logged: nobody waits for it.
func (u *Upstream) notify(ctx context.Context, call *rpccore.ForwardedCall) {
	var last *target
	var lastErr error
	for _, t := range u.order() {
		if ctx.Err() != nil {
			break
		}
		if t.isDown() {
			continue
		}
		last = t
		actx, cancel := context.WithTimeout(ctx, u.timeout())
		c, err := t.clientFor(actx, false)
		if err == nil {
			err = c.Notify(actx, strings.TrimPrefix(call.Method, u.StripPrefix), params(call)...)
		}
		v := classify(err, ctx, actx)
		cancel()
		if v.down {
			t.markDown(u.failDuration(), err)
		}
		if v.outcome == outcomeNotSent {
			lastErr = err
			continue
		}
		u.metrics.count(t, v.outcome)
		if err != nil {
			u.logger.Debug("upstream notification failed", zap.String("method", call.Method),
				zap.String("address", t.label), zap.Error(err))
		}
		return
	}
	if lastErr == nil {
		lastErr = errAllDown
	}
	u.metrics.count(last, outcomeNotSent)
	u.logger.Debug("upstream notification not delivered", zap.String("method", call.Method), zap.Error(lastErr))
}

// order is the order in which a request tries the servers.
func (u *Upstream) order() []*target {
	n := len(u.targets)
	if !u.roundRobin || n == 1 {
		return u.targets
	}
	start := int((u.next.Add(1) - 1) % uint64(n))
	out := make([]*target, 0, n)
	return append(append(out, u.targets[start:]...), u.targets[:start]...)
}
