//go:build js && wasm

// Command wasm is rpccore running inside a browser page: built with
// GOOS=js GOARCH=wasm, it hosts an rpccore.Server with the demo service and
// a "whereami" method, and exports it to JavaScript as the global object
// rpccore (see exports.go). web/index.html loads it with Go's wasm_exec.js.
package main

import (
	"context"
	"runtime"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func main() {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		panic(err)
	}
	if err := s.Register("whereami", rpccore.Func0(whereAmI)); err != nil {
		panic(err)
	}
	direct = newHost(s)
	export(direct)
	// The exported functions run on calls from JavaScript: the program
	// must not exit.
	select {}
}

// Place is the answer of whereami: where the server that answered runs.
type Place struct {
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	Go     string `json:"go"`
}

// whereAmI reports the operating system, architecture and Go version the
// server was built for: js/wasm here.
func whereAmI(context.Context) (Place, error) {
	return Place{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Go: runtime.Version()}, nil
}
