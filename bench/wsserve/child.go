package wsserve

// child.go is the server process: listen, print the URL, serve until
// SIGTERM.

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Impls are the servers a child can run: the two JSON-RPC servers, and
// "fanout" and "fanout_parallel", the bare fan-outs of the broadcast set
// (subscribe and publish only).
var Impls = []string{"ours", "geth", "fanout", "fanout_parallel"}

// Main runs the server named by args[0] and returns the exit code. It
// prints the server's ws:// URL on stdout once it listens.
func Main(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: serve-ws ours|geth|fanout")
		return 2
	}
	RaiseOpenFiles()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := Serve(ctx, args[0], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "serve-ws:", err)
		return 1
	}
	return 0
}

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

// RaiseOpenFiles lifts this process's soft limit on open files to the hard
// limit, for the thousands of connections of the memory and broadcast
// sets, and returns the limit now in force.
func RaiseOpenFiles() uint64 {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	return lim.Cur
}
