package wsserve

// start.go starts a server process from the harness.

import (
	"context"
	"fmt"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/serverproc"
)

// Server is a running child server.
type Server struct {
	// URL is its ws:// endpoint.
	URL string
	// Proc is the process.
	Proc *serverproc.Proc
}

// Subcommand is the first argument that makes the harness binary a server.
const Subcommand = "serve-ws"

// Start runs impl in a child process of this executable, which must hand
// os.Args[1:] to Main when os.Args[1] is Subcommand, and waits for its URL.
func Start(ctx context.Context, impl string) (*Server, error) {
	p, line, err := serverproc.StartSelf(ctx, Subcommand, impl)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "ws://127.0.0.1:") {
		p.Stop()
		return nil, fmt.Errorf("serve-ws %s printed %q, not its URL", impl, line)
	}
	return &Server{URL: line, Proc: p}, nil
}

// Stop ends the server.
func (s *Server) Stop() { s.Proc.Stop() }
