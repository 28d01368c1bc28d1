package clientload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
)

// next returns the call to make after j calls, from the current phase's.
func (r *run) next(j int) *Call {
	calls := *r.calls.Load()
	return &calls[j%len(calls)]
}

// driveOurs dials rpcclient and starts depth goroutines calling CallT, or
// with goCall one goroutine keeping depth calls in flight with GoCall.
func driveOurs(goCall bool) driver {
	return func(ctx context.Context, url string, depth int, r *run) (func(), error) {
		c, err := rpcclient.Dial(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("clientload: %w", err)
		}
		if goCall {
			r.Go(func() error { return goLoop(c, depth, r) })
			return c.Close, nil
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

// callers starts depth goroutines, the g-th making one call at a time with
// do from the g-th call on until the run stops; errors name the client.
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

// goLoop starts depth calls with GoCall, then starts the next call each
// time one comes back, until the run stops. The calls that came back are
// started again, each decoding into a slot of its own: nothing is
// allocated per call.
func goLoop(c *rpcclient.Client, depth int, r *run) error {
	type slot struct {
		call *Call
		n    float64
		s    string
	}
	done := make(chan *rpcclient.AsyncCall, depth)
	slots := make(map[*rpcclient.AsyncCall]*slot, depth)
	for j := 0; !r.Stopping(); j++ {
		var a *rpcclient.AsyncCall
		if j < depth {
			a = &rpcclient.AsyncCall{Done: done}
			slots[a] = &slot{}
		} else {
			// A call that came back is taken without waiting on quit too:
			// a select of two channels locks both.
			select {
			case a = <-done:
			default:
				select {
				case a = <-done:
				case <-r.Ctx.Done():
					return nil
				}
			}
		}
		sl := slots[a]
		if j >= depth {
			err := a.Error
			if err == nil && sl.call.isString() {
				err = check(sl.call, sl.s)
			} else if err == nil {
				err = check(sl.call, sl.n)
			}
			if err != nil {
				return fmt.Errorf("clientload: ours_go: %s: %w", a.Method, err)
			}
			r.answered.Add(1)
		}
		sl.call, sl.n, sl.s = r.next(j), 0, ""
		a.Method, a.Result = sl.call.Method, &sl.n
		if sl.call.isString() {
			a.Result = &sl.s
		}
		c.GoCall(context.Background(), a, sl.call.Args...)
	}
	return nil
}

// bareConn is one connection of the floor (Bare): nothing is encoded or
// decoded per call and there is no table of pending calls, so what is left
// is the framing, the system calls and the park and wake of one goroutine
// per call, which every client called this way pays.
type bareConn struct {
	ws     *msgload.Conn
	stride int            // ids per goroutine: one per call of the workload
	byName map[string]int // the index of each call of the workload
	want   []string       // the encoded result of each call
	reqs   [][][]byte     // by goroutine, the request of each call with its id
	done   []chan error   // by goroutine, its answer's outcome
	mu     sync.Mutex     // guards queued and dead
	queued [][]byte       // requests waiting for the writer
	dead   bool           // the reader stopped: calls fail
	wake   chan struct{}  // the queue is no longer empty
	r      *run
}

// driveBare encodes every call for each of depth goroutines, with ids of
// their own, dials, and starts the goroutines, a writer and a reader.
func driveBare(ctx context.Context, url string, depth int, r *run) (func(), error) {
	calls := *r.calls.Load()
	c := &bareConn{stride: len(calls), byName: map[string]int{}, wake: make(chan struct{}, 1), r: r,
		reqs: make([][][]byte, depth), done: make([]chan error, depth)}
	for k, call := range calls {
		c.byName[call.Method] = k
		c.want = append(c.want, call.Result)
	}
	for g := range depth {
		c.done[g] = make(chan error, 1)
		for k, call := range calls {
			c.reqs[g] = append(c.reqs[g], inprocess.Request(call.Call, g*c.stride+k+1, nil))
		}
	}
	var err error
	if c.ws, err = msgload.Dial(ctx, url); err != nil {
		return nil, fmt.Errorf("clientload: bare: %w", err)
	}
	r.Go(c.writeLoop)
	r.Go(c.readLoop)
	callers(depth, r, Bare, c.call)
	return func() { c.ws.Close() }, nil
}

// call queues goroutine g's request of call for the writer and waits for
// the outcome of its answer.
func (c *bareConn) call(_ context.Context, g int, call *Call) error {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return errors.New("the connection is lost")
	}
	c.queued = append(c.queued, c.reqs[g][c.byName[call.Method]])
	if len(c.queued) == 1 {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	c.mu.Unlock()
	return <-c.done[g]
}

// writeLoop writes what is queued, all of it in one network write, each
// time the queue stops being empty, until the run stops.
func (c *bareConn) writeLoop() error {
	var spare [][]byte
	for {
		select {
		case <-c.wake:
		case <-c.r.Ctx.Done():
			return nil
		}
		// The callers woken by the answers just read are about to queue
		// their next calls: let them, so that they leave together.
		runtime.Gosched()
		c.mu.Lock()
		msgs := c.queued
		c.queued = spare[:0]
		c.mu.Unlock()
		if err := c.ws.WriteMany(msgs...); err != nil {
			return fmt.Errorf("clientload: bare: %w", err)
		}
		spare = msgs
	}
}

// readLoop hands each answer's outcome to the goroutine its id names; when
// reading fails, the goroutines waiting are told and later calls fail.
func (c *bareConn) readLoop() error {
	var msg []byte
	var err error
	for err == nil {
		if msg, err = c.ws.ReadMessage(msg); err == nil {
			err = c.deliver(msg)
		}
	}
	c.r.Fail(fmt.Errorf("clientload: bare: %w", err))
	c.mu.Lock()
	c.dead = true
	c.mu.Unlock()
	for _, d := range c.done {
		select {
		case d <- err:
		default:
		}
	}
	return nil
}

// deliver checks that msg carries the result of the call its id names, the
// same bytes or the same number, and wakes its caller with the outcome. An
// answer no caller waits for ends reading.
func (c *bareConn) deliver(msg []byte) error {
	raw, ok := msgload.Member(msg, `"id":`)
	id, err := strconv.Atoi(string(raw))
	if !ok || err != nil || id < 1 || id > len(c.done)*c.stride {
		return fmt.Errorf("an answer with no id of a call: %.200s", msg)
	}
	g, k := (id-1)/c.stride, (id-1)%c.stride
	if got, ok := msgload.Member(msg, `"result":`); !ok || !msgload.SameResult(got, c.want[k]) {
		err = fmt.Errorf("answered %s, want %s: %.200s", got, c.want[k], msg)
	}
	select {
	case c.done[g] <- err:
		return nil
	default:
		return fmt.Errorf("a second answer to id %d: %.200s", id, msg)
	}
}
