package streamserve

// child.go is the server process: listen, print the address, serve until
// ctx ends.

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/grpcpeer"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/serverproc"
)

// Impls are the servers a child can run.
var Impls = []string{"geth", "grpc", "bare"}

// Subcommand is the first argument that makes the harness binary a stream
// server (serverproc.ChildMain with Serve).
const Subcommand = "serve-stream"

// Server is a running child server.
type Server struct {
	*serverproc.Child
	// Network ("tcp" or "unix") and Addr are where it listens.
	Network, Addr string
}

// Start runs impl in a child process of this executable and waits for its
// address.
func Start(ctx context.Context, impl string) (*Server, error) {
	c, err := serverproc.StartChild(ctx, Subcommand, impl, "tcp ", "unix ")
	if err != nil {
		return nil, err
	}
	network, addr, _ := strings.Cut(c.Addr, " ")
	return &Server{Child: c, Network: network, Addr: addr}, nil
}

// Serve listens (a unix socket in a fresh temporary directory for geth, a
// free loopback TCP port otherwise), writes "<network> <address>" and a
// newline to w, and serves impl until ctx ends.
func Serve(ctx context.Context, impl string, w io.Writer) error {
	network, addr := "tcp", "127.0.0.1:0"
	if impl == "geth" {
		dir, err := os.MkdirTemp("", "bench-ipc-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		network, addr = "unix", filepath.Join(dir, "geth.ipc")
	}
	var serve func(net.Listener) error
	switch impl {
	case "geth":
		s, err := gethServer()
		if err != nil {
			return err
		}
		defer s.Stop()
		serve = s.ServeListener
	case "grpc":
		s := grpcpeer.NewServer()
		defer s.Stop()
		serve = s.Serve
	case "bare":
		serve = func(l net.Listener) error { return serveBare(ctx, l) }
	default:
		return fmt.Errorf("no server %q: want one of %v", impl, Impls)
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		return err
	}
	defer l.Close()
	served := make(chan error, 1)
	go func() { served <- serve(l) }()
	if _, err := fmt.Fprintf(w, "%s %s\n", network, l.Addr()); err != nil {
		return err
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		return nil
	}
}
