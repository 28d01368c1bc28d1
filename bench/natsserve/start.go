package natsserve

// start.go starts the NATS server process from the harness.

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/serverproc"
)

// Server is a running NATS server.
type Server struct {
	// URL is its nats:// URL, on loopback.
	URL string
	// Proc is the process.
	Proc *serverproc.Proc
	dir  string
}

// Start runs the NATS server in a child process of this executable, which
// must hand os.Args[2:] to Main when os.Args[1] is Subcommand, with its
// JetStream store in a fresh temporary directory, and waits for its URL.
func Start(ctx context.Context) (*Server, error) {
	dir, err := os.MkdirTemp("", "bench-nats-")
	if err != nil {
		return nil, err
	}
	p, line, err := serverproc.StartSelf(ctx, Subcommand, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if !strings.HasPrefix(line, "nats://127.0.0.1:") {
		p.Stop()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("serve-nats printed %q, not its URL", line)
	}
	return &Server{URL: line, Proc: p, dir: dir}, nil
}

// Stop ends the server and removes its store.
func (s *Server) Stop() {
	s.Proc.Stop()
	os.RemoveAll(s.dir)
}
