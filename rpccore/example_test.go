package rpccore_test

import (
	"context"
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Subtract is an ordinary typed Go function.
func Subtract(_ context.Context, minuend, subtrahend float64) (float64, error) {
	return minuend - subtrahend, nil
}

// A server with one typed method, called with positional and named params,
// in a batch with a notification and an unknown method.
func ExampleServer_Process() {
	s := rpccore.NewServer(rpccore.WithMaxBatch(100))
	if err := s.Register("subtract", rpccore.Func2(Subtract, "minuend", "subtrahend")); err != nil {
		panic(err)
	}
	req := []byte(`[
		{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1},
		{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": "b"},
		{"jsonrpc": "2.0", "method": "subtract", "params": [1, 1]},
		{"jsonrpc": "2.0", "method": "divide", "params": [1, 1], "id": 3}
	]`)
	out := s.Process(context.Background(), req, nil)
	fmt.Println(string(out))
	// Output:
	// [{"jsonrpc":"2.0","result":19,"id":1},{"jsonrpc":"2.0","result":19,"id":"b"},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}]
}

// Params with a default, an error with data, and a method that handles its
// params itself.
func ExampleMethod_Default() {
	s := rpccore.NewServer()
	scale := rpccore.Func2(func(_ context.Context, x, factor float64) (float64, error) {
		if factor == 0 {
			return 0, &rpccore.Error{Code: 1, Message: "factor must not be 0", Data: map[string]float64{"x": x}}
		}
		return x * factor, nil
	}, "x", "factor").Default("factor", 2.0)
	raw := rpccore.Raw(func(_ context.Context, params []byte, w *rpccore.ResultWriter) error {
		return w.Raw(params) // echo the params as they came
	})
	if err := s.Register("scale", scale); err != nil {
		panic(err)
	}
	if err := s.Register("echo", raw); err != nil {
		panic(err)
	}
	for _, req := range []string{
		`{"jsonrpc":"2.0","method":"scale","params":[21],"id":1}`,
		`{"jsonrpc":"2.0","method":"scale","params":{"x":1,"factor":0},"id":2}`,
		`{"jsonrpc":"2.0","method":"echo","params":{"any":["thing"]},"id":3}`,
	} {
		fmt.Println(string(s.Process(context.Background(), []byte(req), nil)))
	}
	// Output:
	// {"jsonrpc":"2.0","result":42,"id":1}
	// {"jsonrpc":"2.0","error":{"code":1,"message":"factor must not be 0","data":{"x":1}},"id":2}
	// {"jsonrpc":"2.0","result":{"any":["thing"]},"id":3}
}

// A service's methods registered in one call, one of them taking a param
// that may be null or left out: a Nullable, which costs no allocation, and
// Some to return a value.
func ExampleServer_RegisterMethods() {
	s := rpccore.NewServer()
	err := s.RegisterMethods(rpccore.Methods{
		"subtract": rpccore.Func2(Subtract, "minuend", "subtrahend"),
		"double": rpccore.Func1(func(_ context.Context, x rpccore.Nullable[int]) (rpccore.Nullable[int], error) {
			if !x.Valid {
				return rpccore.Nullable[int]{}, nil // null in, null out
			}
			return rpccore.Some(2 * x.Value), nil
		}, "x"),
	})
	if err != nil {
		panic(err)
	}
	for _, req := range []string{
		`{"jsonrpc":"2.0","method":"double","params":[21],"id":1}`,
		`{"jsonrpc":"2.0","method":"double","params":[null],"id":2}`,
		`{"jsonrpc":"2.0","method":"double","id":3}`,
	} {
		fmt.Println(string(s.Process(context.Background(), []byte(req), nil)))
	}
	fmt.Println(s.Register("subtract", rpccore.Func2(Subtract, "minuend", "subtrahend")))
	// Output:
	// {"jsonrpc":"2.0","result":42,"id":1}
	// {"jsonrpc":"2.0","result":null,"id":2}
	// {"jsonrpc":"2.0","result":null,"id":3}
	// method "subtract" is registered twice
}
