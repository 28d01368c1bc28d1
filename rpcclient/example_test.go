package rpcclient_test

import (
	"context"
	"fmt"
	"net"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// serveDemo serves the demo over a loopback TCP listener, as a stream
// listener of the jsonrpc app does, and returns its address.
func serveDemo() (addr string, stop func()) {
	srv := rpccore.NewServer()
	if err := demo.Register(srv); err != nil {
		panic(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			go streamconn.New(nc, nil, streamconn.Options{}).Serve(context.Background(), srv, rpccore.PeerConfig{})
		}
	}()
	return l.Addr().String(), func() { l.Close() }
}

func Example() {
	addr, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := rpcclient.Dial(ctx, "tcp://"+addr)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	var diff float64
	err = c.Call(ctx, &diff, "subtract", 42, 23)
	fmt.Println(diff, err)

	byName, err := rpcclient.CallT[float64](ctx, c, "subtract", rpcclient.Named{"subtrahend": 23, "minuend": 42})
	fmt.Println(byName, err)

	err = c.Call(ctx, nil, "no_such_method")
	fmt.Println(err)

	ticks := make(chan int)
	sub, err := c.Subscribe(ctx, "demo", ticks, "ticks", 10)
	if err != nil {
		panic(err)
	}
	fmt.Println(<-ticks, <-ticks)
	sub.Unsubscribe()
	// Output:
	// 19 <nil>
	// 19 <nil>
	// jsonrpc error -32601: Method not found
	// 1 2
}

func ExampleClient_Go() {
	addr, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := rpcclient.Dial(ctx, "tcp://"+addr)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	// One goroutine keeps 100 calls in flight.
	done := make(chan *rpcclient.AsyncCall, 100)
	sums := make([]int, 100)
	for i := range sums {
		c.Go(ctx, done, &sums[i], "addInt", i, i)
	}
	for range sums {
		if call := <-done; call.Error != nil {
			panic(call.Error)
		}
	}
	fmt.Println(sums[0], sums[1], sums[99])
	// Output: 0 2 198
}
