// Package childserve holds the servers the harness measures outside Caddy,
// each run in a child process of its own, the harness binary run again as
// `run serve <impl>`, so that its memory and CPU time can be read from
// /proc and its file descriptors do not count against the load generator's.
// The child listens on loopback, prints where on its first line (a ws://
// or nats:// URL, or "<network> <address>" for a stream server), and serves
// until it is sent SIGTERM.
//
// Over WebSocket: "ours" (rpccore with the demo service over package
// wsconn, the code behind the Caddy handler's upgrade, for the client set
// and where bin/caddy does not answer the upgrade), "geth" (go-ethereum's
// WebSocket handler) and the bare fan-outs of the broadcast set, "fanout"
// and "fanout_parallel". Over streams: "ipc" (go-ethereum's IPC server),
// "grpc" (package grpcpeer's service) and "bare", the floor of the stream
// sets. "nats" is the nodes set's nats-server.
package childserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/grpcpeer"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/serverproc"
)

// Subcommand is the first argument that makes the harness binary a child
// server (Main).
const Subcommand = "serve"

// Server is a running child server.
type Server struct {
	*serverproc.Proc
	// Network ("tcp" or "unix") and Addr are where a stream server
	// listens; Addr is the URL of the others.
	Network, Addr string
}

// Start runs impl in a child process of this executable and returns it
// once it prints where it serves, within 30 seconds.
func Start(ctx context.Context, impl string) (*Server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p, err := serverproc.Start(ctx, nil, exe, Subcommand, impl)
	if err != nil {
		return nil, err
	}
	line, err := p.Line(30 * time.Second)
	s := &Server{Proc: p, Addr: line}
	if network, addr, ok := strings.Cut(line, " "); ok && (network == "tcp" || network == "unix") {
		s.Network, s.Addr = network, addr
	} else if err == nil && !strings.HasPrefix(line, "ws://127.0.0.1:") && !strings.HasPrefix(line, "nats://127.0.0.1:") {
		err = fmt.Errorf("%s %s printed %q, not its address", Subcommand, impl, line)
	}
	if err != nil {
		p.Stop()
		return nil, err
	}
	return s, nil
}

// Main is the child's side of Start: it lifts the open-files limit and
// serves args[0] until SIGTERM or an interrupt. It returns the exit code.
func Main(args []string) int {
	if len(args) != 1 || args[0] == "" {
		fmt.Fprintf(os.Stderr, "usage: %s <server>\n", Subcommand)
		return 2
	}
	serverproc.RaiseOpenFiles()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := Serve(ctx, args[0], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, Subcommand+":", err)
		return 1
	}
	return 0
}

// Serve listens on loopback (a unix socket in a fresh temporary directory
// for ipc), writes where it serves and a newline to w, and serves impl
// until ctx ends.
func Serve(ctx context.Context, impl string, w io.Writer) error {
	network, addr, where := "tcp", "127.0.0.1:0", "ws://%s/rpc"
	var serve func(net.Listener) error
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
	case "ipc":
		dir, err := os.MkdirTemp("", "bench-ipc-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		network, addr, where = "unix", filepath.Join(dir, "geth.ipc"), "unix %s"
		s := inprocess.NewGethServer()
		defer s.Stop()
		serve = s.ServeListener
	case "grpc":
		s := grpcpeer.NewServer()
		defer s.Stop()
		serve, where = s.Serve, "tcp %s"
	case "bare":
		serve, where = serveBare, "tcp %s"
	case "nats":
		return serveNATS(ctx, w)
	default:
		err = fmt.Errorf("no server %q (see the package's doc)", impl)
	}
	if err != nil {
		return err
	}
	if h != nil {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		defer srv.Close()
		serve = srv.Serve
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		return err
	}
	defer l.Close()
	defer context.AfterFunc(ctx, func() { l.Close() })()
	if _, err := fmt.Fprintf(w, where+"\n", l.Addr()); err != nil {
		return err
	}
	if err := serve(l); ctx.Err() == nil {
		return err
	}
	return nil
}

// serveNATS starts nats-server on a free loopback port with JetStream
// storing in a fresh temporary directory, writes its nats:// URL and a
// newline to w, and serves until ctx ends.
func serveNATS(ctx context.Context, w io.Writer) error {
	dir, err := os.MkdirTemp("", "bench-nats-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := server.NewServer(&server.Options{
		ServerName: "bench", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		HTTPPort: 0, // no monitoring port
		NoLog:    true, NoSigs: true, JetStream: true, StoreDir: dir,
		// Bounds that a benchmark of seconds never reaches; a confused
		// run cannot fill the disk.
		JetStreamMaxMemory: 256 << 20, JetStreamMaxStore: 1 << 30,
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
