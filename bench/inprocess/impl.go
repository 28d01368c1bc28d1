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

// Caller sends one request document and returns the response document. The
// returned bytes are valid until the next call. A Caller is used by one
// goroutine at a time.
type Caller func(req []byte) []byte

// Impl is one JSON-RPC server implementation under test.
type Impl struct {
	Name string // names the implementation in benchmark names
	// Rename maps a workload method name to the name this implementation
	// serves it under; nil when the names are the same.
	Rename func(string) string
	// NewCaller returns a Caller for one goroutine and a function that
	// releases what it holds.
	NewCaller func() (Caller, func())
}

// All returns every implementation, ours first.
func All() []Impl {
	return []Impl{Ours(), OursTraced(), Geth(), JRPC2(), StdJSON(), GoccyJSON()}
}
