// Command render redraws the charts and the HTML page of a results
// directory from its benchmarks.json, without measuring anything.
//
//	cd bench && go run ./cmd/render [results]
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/harness"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

func main() {
	dir := "results"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	d, err := schema.Read(filepath.Join(dir, harness.JSONFile))
	if err == nil {
		err = harness.Write(d, dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}
