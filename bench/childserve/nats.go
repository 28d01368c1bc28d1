package childserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// serveNATS starts nats-server on a free loopback port with JetStream
// storing in a fresh temporary directory, writes its nats:// URL and a
// newline to w, and serves until ctx ends. In a process of its own its CPU
// and garbage collection are not the load generator's.
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
