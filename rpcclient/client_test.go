package rpcclient

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// transports returns a URL of each connection transport serving srv.
func transports(t *testing.T, srv *rpccore.Server) map[string]string {
	return map[string]string{
		"ws":   startWebSocketServer(t, srv),
		"tcp":  startStreamServer(t, srv).url(),
		"unix": startStreamServerOn(t, srv, "unix", filepath.Join(t.TempDir(), "rpc.sock")).url(),
	}
}

func TestCallsAndParams(t *testing.T) {
	for name, url := range transports(t, newTestRPCServer(t)) {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, url)
			ctx := testContext(t)
			var sum float64
			if err := c.Call(ctx, &sum, "add", 1, 2.5); err != nil || sum != 3.5 {
				t.Fatalf("add: %v, %v", sum, err)
			}
			diff, err := CallT[float64](ctx, c, "subtract", Named{"minuend": 42, "subtrahend": 23})
			if err != nil || diff != 19 {
				t.Fatalf("subtract by name: %v, %v", diff, err)
			}
			type args struct {
				Minuend    float64 `json:"minuend"`
				Subtrahend float64 `json:"subtrahend"`
			}
			if diff, err = CallT[float64](ctx, c, "subtract", ByName(args{Minuend: 1, Subtrahend: 3})); err != nil || diff != -2 {
				t.Fatalf("subtract by struct: %v, %v", diff, err)
			}
			s, err := CallT[string](ctx, c, "StringMe", "h\u00e9\"llo")
			if err != nil || s != "h\u00e9\"llo" {
				t.Fatalf("StringMe: %q, %v", s, err)
			}
			data, err := CallT[[]any](ctx, c, "get_data")
			if err != nil || fmt.Sprint(data) != "[hello 5]" {
				t.Fatalf("get_data: %v, %v", data, err)
			}
			n, err := CallT[int](ctx, c, "addInt", 40, 2)
			if err != nil || n != 42 {
				t.Fatalf("addInt: %v, %v", n, err)
			}
			if err := c.Notify(ctx, "notify_hello", 7); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for name, url := range transports(t, newTestRPCServer(t)) {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, url)
			ctx := testContext(t)
			err := c.Call(ctx, nil, "fail")
			var rpcErr *rpccore.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != 4711 || rpcErr.Message != "failed on purpose" ||
				fmt.Sprintf("%s", rpcErr.Data) != `{"n":1}` {
				t.Fatalf("fail: %#v", err)
			}
			if err := c.Call(ctx, nil, "nope"); !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeMethodNotFound {
				t.Fatalf("unknown method: %v", err)
			}
			if err := c.Call(ctx, nil, "add", 1); !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeInvalidParams {
				t.Fatalf("missing param: %v", err)
			}
			var wrong int
			if err := c.Call(ctx, &wrong, "StringMe", "x"); !errors.Is(err, ErrBadAnswer) {
				t.Fatalf("string into int: %v", err)
			}
			if err := c.Call(ctx, nil, "add", 1, func() {}); err == nil {
				t.Fatal("a func argument was sent")
			}
			// The client still works.
			if v, err := CallT[float64](ctx, c, "Test2", 1.5); err != nil || v != 1.5 {
				t.Fatalf("after errors: %v, %v", v, err)
			}
		})
	}
}

func TestBatchCall(t *testing.T) {
	for name, url := range transports(t, newTestRPCServer(t)) {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, url)
			var a, b float64
			var s string
			batch := []BatchElem{
				{Method: "add", Args: []any{1, 2}, Result: &a},
				{Method: "fail"},
				{Method: "StringMe", Args: []any{"x"}, Result: &s},
				{Method: "subtract", Args: []any{Named{"minuend": 5, "subtrahend": 1}}, Result: &b},
			}
			if err := c.BatchCall(testContext(t), batch); err != nil {
				t.Fatal(err)
			}
			var rpcErr *rpccore.Error
			if a != 3 || s != "x" || b != 4 || batch[0].Error != nil || !errors.As(batch[1].Error, &rpcErr) || rpcErr.Code != 4711 {
				t.Fatalf("batch: %v %q %v %v", a, s, b, batch)
			}
		})
	}
}

func TestConcurrentCalls(t *testing.T) {
	for name, url := range transports(t, newTestRPCServer(t)) {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, url)
			ctx := testContext(t)
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for g := range 64 {
				wg.Go(func() {
					for i := range 200 {
						var r int
						if err := c.Call(ctx, &r, "addInt", g, i); err != nil || r != g+i {
							errs <- fmt.Errorf("addInt(%d, %d) = %d, %v", g, i, r, err)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		})
	}
}

func TestServerCallsTheClient(t *testing.T) {
	for name, url := range transports(t, newTestRPCServer(t)) {
		t.Run(name, func(t *testing.T) {
			notes := make(chan string, 1)
			c := dialTest(t, url, WithMethods(rpccore.Methods{
				"client_answer": rpccore.Func1(func(_ context.Context, q string) (string, error) {
					return "42 to " + q, nil
				}, "q"),
				"client_note": rpccore.Proc1(func(_ context.Context, note string) error {
					notes <- note
					return nil
				}, "note"),
			}))
			got, err := CallT[string](testContext(t), c, "askClient", "life")
			if err != nil || got != "client said 42 to life" {
				t.Fatalf("askClient: %q, %v", got, err)
			}
			if n := <-notes; n != "asked life" {
				t.Fatalf("note: %q", n)
			}
		})
	}
}

func TestCallAfterClose(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	c.Close()
	if err := c.Call(context.Background(), nil, "add", 1, 2); !errors.Is(err, ErrClientClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if c.State() != Closed {
		t.Fatalf("state %v", c.State())
	}
}
