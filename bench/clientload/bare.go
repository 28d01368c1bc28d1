package clientload

// bare.go drives the floor of the set: the least a client that calls from
// one goroutine per call can do over WebSocket. Each goroutine writes a
// request encoded beforehand with an id of its own and waits for its
// answer; one goroutine per connection writes what is queued in one
// network write, another reads, finds the caller by the answer's id and
// compares the result with the bytes expected. Nothing is encoded or
// decoded per call and there is no table of pending calls: what is left is
// the framing, the system calls and the park and wake of one goroutine per
// call, which every client called this way pays.

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

type bareConn struct {
	ws     *wsload.Conn
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

// driveBare dials one bare connection and starts depth goroutines calling
// through it, with its writer and reader.
func driveBare(ctx context.Context, url string, depth int, r *run, wg *sync.WaitGroup) (func(), error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	ws, err := wsload.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("clientload: bare: %w", err)
	}
	c, err := newBareConn(ws, *r.calls.Load(), depth, r)
	if err != nil {
		ws.Close()
		return nil, err
	}
	wg.Go(c.writeLoop)
	wg.Go(c.readLoop)
	for g := range depth {
		wg.Go(func() { c.callLoop(g) })
	}
	return func() { ws.Close() }, nil
}

// newBareConn encodes every request of calls for each of depth goroutines
// and the result each must get.
func newBareConn(ws *wsload.Conn, calls []Call, depth int, r *run) (*bareConn, error) {
	c := &bareConn{ws: ws, stride: len(calls), byName: map[string]int{}, wake: make(chan struct{}, 1), r: r,
		reqs: make([][][]byte, depth), done: make([]chan error, depth)}
	var encoded []inprocess.Call // the calls with their params encoded
	for k, call := range calls {
		c.byName[call.Method] = k
		var result any = call.Number
		if call.IsString {
			result = call.String
		}
		want, err := json.Marshal(result)
		if err != nil {
			return nil, err
		}
		c.want = append(c.want, string(want))
		params, err := json.Marshal(call.Args)
		if err != nil {
			return nil, fmt.Errorf("clientload: bare: params of %s: %w", call.Method, err)
		}
		encoded = append(encoded, inprocess.Call{Method: call.Method, Params: string(params)})
	}
	for g := range depth {
		c.done[g] = make(chan error, 1)
		for k, call := range encoded {
			c.reqs[g] = append(c.reqs[g], inprocess.Request(call, g*c.stride+k+1, nil))
		}
	}
	return c, nil
}

// callLoop makes goroutine g's calls one at a time, starting at the g-th,
// until the run stops or the connection is lost.
func (c *bareConn) callLoop(g int) {
	for j := g; !c.r.stop.Load(); j++ {
		k := c.byName[c.r.next(j).Method]
		c.mu.Lock()
		if c.dead {
			c.mu.Unlock()
			return
		}
		c.queued = append(c.queued, c.reqs[g][k])
		if len(c.queued) == 1 {
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
		c.mu.Unlock()
		if err := <-c.done[g]; err != nil {
			c.r.fail(fmt.Errorf("clientload: bare: %w", err))
			return
		}
		c.r.answered.Add(1)
	}
}

// writeLoop writes what is queued, all of it in one network write, each
// time the queue stops being empty, until the run stops.
func (c *bareConn) writeLoop() {
	var spare [][]byte
	for {
		select {
		case <-c.wake:
		case <-c.r.quit:
			return
		}
		// The callers woken by the answers just read are about to queue
		// their next calls: let them, so that they leave together.
		runtime.Gosched()
		c.mu.Lock()
		msgs := c.queued
		c.queued = spare[:0]
		c.mu.Unlock()
		for _, m := range msgs {
			if err := c.ws.Write(m); err != nil {
				c.r.fail(fmt.Errorf("clientload: bare: %w", err))
				return
			}
		}
		if err := c.ws.Flush(); err != nil {
			c.r.fail(fmt.Errorf("clientload: bare: %w", err))
			return
		}
		spare = msgs
	}
}

// readLoop reads the answers and hands each to the goroutine its id names,
// with its outcome. When reading fails, every goroutine waiting is told
// and later calls fail.
func (c *bareConn) readLoop() {
	var msg []byte
	var err error
	for err == nil {
		if msg, err = c.ws.ReadMessage(msg); err == nil {
			err = c.deliver(msg)
		}
	}
	c.r.fail(fmt.Errorf("clientload: bare: %w", err))
	c.mu.Lock()
	c.dead = true
	c.mu.Unlock()
	for _, d := range c.done {
		select {
		case d <- err:
		default:
		}
	}
}

// deliver checks one answer and wakes its caller with the outcome. An
// answer no caller waits for ends reading.
func (c *bareConn) deliver(msg []byte) error {
	raw, ok := wsload.Member(msg, `"id":`)
	id, err := strconv.Atoi(string(raw))
	if !ok || err != nil || id < 1 || id > len(c.done)*c.stride {
		return fmt.Errorf("an answer with no id of a call: %.200s", msg)
	}
	g, k := (id-1)/c.stride, (id-1)%c.stride
	select {
	case c.done[g] <- c.check(msg, k):
		return nil
	default:
		return fmt.Errorf("a second answer to id %d: %.200s", id, msg)
	}
}

// check fails unless msg carries the result of call k, the same bytes or
// the same number.
func (c *bareConn) check(msg []byte, k int) error {
	got, ok := wsload.Member(msg, `"result":`)
	if !ok {
		return fmt.Errorf("no result: %.200s", msg)
	}
	if !wsload.SameResult(got, c.want[k]) {
		return fmt.Errorf("answered %s, want %s", got, c.want[k])
	}
	return nil
}
