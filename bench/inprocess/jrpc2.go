package inprocess

import (
	"context"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
)

// JRPC2 is a jrpc2.Server per caller on a channel.Direct pair, its methods
// mapping positional params onto typed functions: the caller sends the raw
// request document on the client end and receives the raw response document,
// with no client library and no framing in between. This is the cheapest
// path jrpc2 offers that still runs its own parsing, dispatch and encoding.
func JRPC2() Impl {
	methods := handler.Map{
		"add":    handler.NewPos(func(_ context.Context, a, b float64) (float64, error) { return a + b, nil }, "a", "b"),
		"addInt": handler.NewPos(func(_ context.Context, a, b int) (int, error) { return a + b, nil }, "a", "b"),
		"NullableFloatToNullableFloat": handler.NewPos(
			func(_ context.Context, x *float32) (*float32, error) { return x, nil }, "x"),
		"Test2":    handler.NewPos(func(_ context.Context, x float64) (float64, error) { return x, nil }, "x"),
		"StringMe": handler.NewPos(func(_ context.Context, s string) (string, error) { return s, nil }, "s"),
	}
	return Impl{
		Name: "jrpc2",
		NewCaller: func() (Caller, func()) {
			cli, srv := channel.Direct()
			s := jrpc2.NewServer(methods, nil).Start(srv)
			call := func(req []byte) []byte {
				if err := cli.Send(req); err != nil {
					panic(err)
				}
				rsp, err := cli.Recv()
				if err != nil {
					panic(err)
				}
				return rsp
			}
			return call, func() {
				cli.Close()
				s.Wait()
			}
		},
	}
}
