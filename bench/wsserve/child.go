package wsserve

// child.go is the server process: listen, print the URL, serve until ctx
// ends.

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/serverproc"
)

// Impls are the servers a child can run: the two JSON-RPC servers, and
// "fanout" and "fanout_parallel", the bare fan-outs of the broadcast set
// (subscribe and publish only).
var Impls = []string{"ours", "geth", "fanout", "fanout_parallel"}

// Serve listens on a free loopback port, writes the ws:// URL of impl's
// endpoint and a newline to w, and serves until ctx ends.
func Serve(ctx context.Context, impl string, w io.Writer) error {
	var h http.Handler
	var err error
	switch impl {
	case "ours":
		h, err = oursHandler(ctx)
	case "geth":
		h, err = gethHandler()
	case "fanout":
		h = fanoutHandler(ctx)
	case "fanout_parallel":
		h = parallelFanoutHandler(ctx)
	default:
		err = fmt.Errorf("no server %q: want one of %v", impl, Impls)
	}
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/rpc", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	if _, err := fmt.Fprintf(w, "ws://%s/rpc\n", l.Addr()); err != nil {
		srv.Close()
		return err
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		return srv.Close()
	}
}

// Subcommand is the first argument that makes the harness binary a
// WebSocket server (serverproc.ChildMain with Serve).
const Subcommand = "serve-ws"

// Start runs impl in a child process of this executable and waits for its
// ws:// URL, the child's Addr.
func Start(ctx context.Context, impl string) (*serverproc.Child, error) {
	return serverproc.StartChild(ctx, Subcommand, impl, "ws://127.0.0.1:")
}
