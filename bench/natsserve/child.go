package natsserve

// child.go is the server process: start nats-server, print its URL, serve
// until SIGTERM.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Subcommand is the first argument that makes the harness binary the NATS
// server.
const Subcommand = "serve-nats"

// Main runs the server with its JetStream store in args[0] and returns the
// exit code.
func Main(args []string) int {
	if len(args) != 1 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "usage: serve-nats <store dir>")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := Serve(ctx, args[0], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "serve-nats:", err)
		return 1
	}
	return 0
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
