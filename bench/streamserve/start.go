package streamserve

// start.go starts a server process from the harness.

import (
	"context"
	"fmt"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/serverproc"
)

// Server is a running child server.
type Server struct {
	// Network ("tcp" or "unix") and Addr are where it listens.
	Network, Addr string
	// Proc is the process.
	Proc *serverproc.Proc
}

// Start runs impl in a child process of this executable, which must hand
// os.Args[2:] to Main when os.Args[1] is Subcommand, and waits for its
// address.
func Start(ctx context.Context, impl string) (*Server, error) {
	p, line, err := serverproc.StartSelf(ctx, Subcommand, impl)
	if err != nil {
		return nil, err
	}
	network, addr, ok := strings.Cut(line, " ")
	if !ok || (network != "tcp" && network != "unix") {
		p.Stop()
		return nil, fmt.Errorf("serve-stream %s printed %q, not its address", impl, line)
	}
	return &Server{Network: network, Addr: addr, Proc: p}, nil
}

// Stop ends the server.
func (s *Server) Stop() { s.Proc.Stop() }
