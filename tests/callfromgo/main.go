package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func main() {
	url := "wss://localhost:8443/rpc" // ./xcaddy.sh run serves it
	if len(os.Args) > 1 {
		url = os.Args[1]
	}
	ctx := context.Background()
	c, err := rpcclient.Dial(ctx, url,
		rpcclient.WithTLSConfig(&tls.Config{InsecureSkipVerify: true}), // Caddy's internal CA, as curl -k
		rpcclient.WithStateFunc(func(s rpcclient.State, cause error) { log.Println("connection:", s, cause) }),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	var diff float64
	if err := c.Call(ctx, &diff, "subtract", 42, 23); err != nil { // positional params
		log.Fatal(err)
	}
	sum, err := rpcclient.CallT[float64](ctx, c, "subtract", rpcclient.Named{"minuend": 42, "subtrahend": 23})
	fmt.Println(diff, sum, err) // 19 19 <nil>

	var rpcErr *rpccore.Error
	if err := c.Call(ctx, nil, "no_such_method"); errors.As(err, &rpcErr) {
		fmt.Println(rpcErr.Code, rpcErr.Message) // -32601 Method not found
	}

	batch := []rpcclient.BatchElem{
		{Method: "add", Args: []any{1, 2}, Result: new(float64)},
		{Method: "StringMe", Args: []any{"Foo"}, Result: new(string)},
	}
	if err := c.BatchCall(ctx, batch); err != nil { // one message; each element has its own Error
		log.Fatal(err)
	}

	ticks := make(chan int)
	sub, err := c.Subscribe(ctx, "demo", ticks, "ticks", 500) // demo_subscribe("ticks", 500)
	if err != nil {
		log.Fatal(err)
	}
	defer sub.Unsubscribe()
	for i := 0; i < 5; i++ {
		select {
		case n := <-ticks:
			fmt.Println("tick", n)
		case <-sub.Gap():
			fmt.Println("reconnected: ticks sent meanwhile may be lost")
		case err := <-sub.Err():
			log.Fatal(err)
		case <-time.After(5 * time.Second):
			log.Fatal("no tick")
		}
	}
}
