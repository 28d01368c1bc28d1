package natsserve

// child.go runs nats-server: in the child process, print its URL and serve
// until ctx ends; from the harness, start that process.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/serverproc"
)

// Subcommand is the first argument that makes the harness binary the NATS
// server (serverproc.ChildMain with Serve).
const Subcommand = "serve-nats"

// Server is a running NATS server.
type Server struct {
	*serverproc.Child
	dir string
}

// Start runs the NATS server in a child process of this executable, with
// its JetStream store in a fresh temporary directory, and waits for its
// nats:// URL, the child's Addr.
func Start(ctx context.Context) (*Server, error) {
	dir, err := os.MkdirTemp("", "bench-nats-")
	if err != nil {
		return nil, err
	}
	c, err := serverproc.StartChild(ctx, Subcommand, dir, "nats://127.0.0.1:")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Server{Child: c, dir: dir}, nil
}

// Stop ends the server and removes its store.
func (s *Server) Stop() {
	s.Proc.Stop()
	os.RemoveAll(s.dir)
}

// Serve starts nats-server on a free loopback port with JetStream storing
// in dir, writes its nats:// URL and a newline to w, and serves until ctx
// ends.
func Serve(ctx context.Context, dir string, w io.Writer) error {
	s, err := server.NewServer(&server.Options{
		ServerName: "bench",
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		HTTPPort:   0, // no monitoring port
		NoLog:      true,
		NoSigs:     true,
		JetStream:  true,
		StoreDir:   dir,
		// Bounds that a benchmark of seconds never reaches; a confused
		// run cannot fill the disk.
		JetStreamMaxMemory: 256 << 20,
		JetStreamMaxStore:  1 << 30,
	})
	if err != nil {
		return err
	}
	s.Start()
	defer func() {
		s.Shutdown()
		s.WaitForShutdown()
	}()
	if !s.ReadyForConnections(20 * time.Second) {
		return errors.New("nats-server did not take connections within 20s")
	}
	if _, err := fmt.Fprintln(w, s.ClientURL()); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
