// Package clientload drives Go JSON-RPC clients against one WebSocket
// server, so that the clients, not the server, are what differs. Every
// answer is decoded into a Go value and the value checked. It reports the
// calls per second of timed windows and the allocations per call of the
// harness process (the server is another process, so they are the
// client's). Like package load it only ever connects to loopback: a URL
// whose host is not a loopback IP or "localhost" is refused.
package clientload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// The clients, named as the series that measure them; Depth is the calls in
// flight on each connection.
const (
	Ours   = "ours"    // rpcclient, Depth goroutines per connection each calling CallT in a loop
	OursGo = "ours_go" // rpcclient, one goroutine per connection keeping Depth calls in flight with GoCall
	Geth   = "geth"    // go-ethereum's rpc.Client, Depth goroutines per connection each calling CallContext
	// Bare is the floor: Depth goroutines per connection each writing a
	// request encoded beforehand and comparing its answer's bytes, with
	// nothing of a client library between them and the connection.
	Bare = "bare"
)

// Call is one request as a Go client makes it, and the value its answer
// must decode to.
type Call struct {
	inprocess.Call       // the request and its result as JSON, for the bare client
	Args           []any // the params
	Want           any   // the result: a float64, or a string
}

// Workload returns the five benchmark requests (inprocess.Workload) as Go
// calls: the params and results decoded from their JSON.
func Workload() ([]Call, error) {
	var out []Call
	for _, w := range inprocess.Workload {
		c := Call{Call: w}
		if err := errors.Join(json.Unmarshal([]byte(w.Params), &c.Args), json.Unmarshal([]byte(w.Result), &c.Want)); err != nil {
			return nil, fmt.Errorf("clientload: %s: %w", w.Method, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func (c *Call) isString() bool {
	_, ok := c.Want.(string)
	return ok
}

// check fails unless got is the result c wants.
func check[T float64 | string](c *Call, got T) error {
	if want, ok := c.Want.(T); !ok || got != want {
		return fmt.Errorf("clientload: %s answered %v, want %v", c.Method, got, c.Want)
	}
	return nil
}

// Config describes one run.
type Config struct {
	URL          string           // the server's ws:// endpoint, on loopback
	Client       string           // Ours, OursGo, Geth or Bare
	Conns, Depth int              // the connections, one client each, and the calls in flight on each
	Calls        []Call           // made in turn, each goroutine starting at a different one
	Windows      pipeline.Windows // times the run
	// Numeric, when it counts windows, times a second phase on the same
	// connections: only the calls with a numeric result, for their
	// allocations per call; its warm-up lets the first phase's calls finish.
	Numeric pipeline.Windows
}

// Window is one timed window.
type Window struct {
	Rate   float64 // the calls per second
	Allocs float64 // the heap allocations of the harness process per call
}

// Result is a run's windows: those of Windows, with all the calls, and Numeric's.
type Result struct {
	All, Numeric []Window
}

// run is what the goroutines of a run share.
type run struct {
	calls atomic.Pointer[[]Call] // the calls being made, switched between the phases
	*pipeline.Group
	// answered has a cache line (64 bytes at least) of its own: every call
	// adds to it, and the fields above are read by every call on every core.
	_        [64]byte
	answered atomic.Int64
	_        [64 - 8]byte
}

// Run dials cfg.Conns clients of cfg.Client to cfg.URL and drives them for
// the windows; a wrong answer or a failed call ends it with an error.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := msgload.CheckURL(cfg.URL); err != nil {
		return Result{}, err
	}
	drive, ok := drivers[cfg.Client]
	if !ok {
		return Result{}, fmt.Errorf("clientload: no client %q", cfg.Client)
	}
	r := &run{Group: pipeline.NewGroup(ctx)}
	r.calls.Store(&cfg.Calls)
	var closers []func()
	defer r.Stop(func() {
		for _, c := range closers {
			c()
		}
	})
	for range cfg.Conns {
		dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		closeClient, err := drive(dialCtx, cfg.URL, cfg.Depth, r)
		cancel()
		if err != nil {
			return Result{}, err
		}
		closers = append(closers, closeClient)
	}
	var res Result
	var err error
	if res.All, err = r.windows(cfg.Windows); err != nil {
		return Result{}, err
	}
	if cfg.Numeric.Count > 0 {
		numeric := slices.DeleteFunc(slices.Clone(cfg.Calls), func(c Call) bool { return c.isString() })
		r.calls.Store(&numeric)
		if res.Numeric, err = r.windows(cfg.Numeric); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// windows times w, reading the calls answered and the heap allocations of
// the process at the start and the end of every window.
func (r *run) windows(w pipeline.Windows) ([]Window, error) {
	var ms runtime.MemStats
	growth, err := w.Growth(r.Ctx, func() ([]float64, error) {
		n := r.answered.Load()
		runtime.ReadMemStats(&ms)
		return []float64{float64(n), float64(ms.Mallocs)}, nil
	})
	out := make([]Window, len(growth))
	for i, g := range growth {
		out[i] = Window{Rate: g[0], Allocs: g[1] / g[0]}
	}
	return out, err
}

// driver dials one client (ctx bounds the dial) and drives it with depth
// calls in flight in r until the function it returns closes it.
type driver func(ctx context.Context, url string, depth int, r *run) (func(), error)

var drivers = map[string]driver{Ours: driveOurs(false), OursGo: driveOurs(true), Geth: driveGeth, Bare: driveBare}
