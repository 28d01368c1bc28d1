// Command load sends POST requests to a loopback URL over keep-alive
// HTTP/1.1 or HTTP/2 connections, checks every answer, and prints what it
// measured (requests/s, calls/s, latency percentiles) as one JSON object on
// stdout. It exits 1 when any request failed or was answered wrongly, and 2
// for bad flags or a target that is not loopback.
//
//	load -url https://127.0.0.1:8443/rpc -k -h2 -c 64 -d 5s \
//	     -body '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}' \
//	     -expect '{"jsonrpc":"2.0","result":3,"id":1}'
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
)

// output is the printed object: the result under the run's label.
type output struct {
	Label string `json:"label,omitempty"`
	load.Result
}

func main() {
	var (
		cfg        load.Config
		body       = flag.String("body", "", "request body")
		bodyFile   = flag.String("body-file", "", "file holding the request body")
		expect     = flag.String("expect", "", "exact body every answer must have")
		expectFile = flag.String("expect-file", "", "file holding the exact body every answer must have")
		label      = flag.String("label", "", "label copied into the output")
	)
	flag.StringVar(&cfg.URL, "url", "", "target URL (loopback only)")
	flag.BoolVar(&cfg.HTTP2, "h2", false, "use HTTP/2 (default HTTP/1.1)")
	flag.IntVar(&cfg.Conns, "c", 1, "connections, one request in flight on each")
	flag.DurationVar(&cfg.Duration, "d", 0, "length of the timed run")
	flag.Int64Var(&cfg.Requests, "n", 0, "number of requests of the timed run")
	flag.DurationVar(&cfg.Warmup, "warmup", 0, "time spent sending before the clock starts")
	flag.DurationVar(&cfg.Timeout, "timeout", 0, "per-request timeout (default 10s)")
	flag.BoolVar(&cfg.Insecure, "k", false, "skip TLS certificate verification")
	flag.IntVar(&cfg.ExpectStatus, "status", 200, "status every answer must have")
	flag.StringVar(&cfg.ExpectContentType, "expect-type", "", "Content-Type every answer must have")
	flag.StringVar(&cfg.ContentType, "type", "application/json", "request Content-Type")
	flag.IntVar(&cfg.CallsPerRequest, "calls", 1, "JSON-RPC calls per request (the batch size)")
	flag.Parse()

	var err error
	if cfg.Body, err = bytesFrom(*body, *bodyFile); err != nil {
		fail(2, err)
	}
	if *expect != "" || *expectFile != "" {
		if cfg.ExpectBody, err = bytesFrom(*expect, *expectFile); err != nil {
			fail(2, err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := load.Run(ctx, cfg)
	if err != nil {
		fail(2, err)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(output{Label: *label, Result: res}); err != nil {
		fail(2, err)
	}
	if res.Errors > 0 {
		fmt.Fprintf(os.Stderr, "load: %d errors, first: %s\n", res.Errors, res.FirstError)
		os.Exit(1)
	}
}

// bytesFrom returns s, or the contents of file when it is set.
func bytesFrom(s, file string) ([]byte, error) {
	if file != "" {
		return os.ReadFile(file)
	}
	return []byte(s), nil
}

// fail prints err and exits with code.
func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "load:", err)
	os.Exit(code)
}
