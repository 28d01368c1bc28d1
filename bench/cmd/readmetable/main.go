// Command readmetable rewrites the performance block of ../README.md, the
// text between <!-- bench:start --> and <!-- bench:end -->, from
// results/benchmarks.json. With -check it changes nothing and exits 1 when
// the block differs from what the JSON generates.
//
//	cd bench && go run ./cmd/readmetable [-check] [-json results/benchmarks.json] [-readme ../README.md]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/harness"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/report"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

func main() {
	var (
		jsonFile = flag.String("json", "results/benchmarks.json", "the benchmarks document")
		readme   = flag.String("readme", "../README.md", "the README to rewrite")
		check    = flag.Bool("check", false, "only check that the README's block is what the JSON generates")
	)
	flag.Parse()
	d, err := schema.Read(*jsonFile)
	if err != nil {
		fail(err)
	}
	if !*check {
		if err := harness.UpdateReadme(d, *readme); err != nil {
			fail(err)
		}
		return
	}
	b, err := os.ReadFile(*readme)
	if err != nil {
		fail(err)
	}
	got, err := report.CurrentBlock(string(b))
	if err != nil {
		fail(err)
	}
	if got != report.ReadmeBlock(d) {
		fail(fmt.Errorf("the performance block of %s differs from what %s generates; run `cd bench && go run ./cmd/readmetable`", *readme, *jsonFile))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "readmetable:", err)
	os.Exit(1)
}
