// Package inprocess compares JSON-RPC 2.0 servers inside one process on the
// five benchmark requests: this project's rpccore, go-ethereum's rpc,
// creachadair/jrpc2, and plain dispatchers built on encoding/json and on
// github.com/goccy/go-json.
//
// Every implementation is reached through a Caller: a function that takes a
// request document and returns the response document. Each Impl says how to
// make callers (one per goroutine) and how its peers spell the method names,
// so that the benchmarks and the answer checks treat them all alike.
package inprocess
