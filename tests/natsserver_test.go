package tests

// natsserver_test.go runs an embedded NATS server with JetStream for the
// NATS hub's tests: on a loopback port, with its store in a temporary
// directory, and restartable on both.

import (
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// natsServer is an embedded NATS server that a test can stop and start.
type natsServer struct {
	t    *testing.T
	opts server.Options
	srv  *server.Server
	URL  string
}

// newNATS returns a stopped server with its own port and store.
func newNATS(t *testing.T) *natsServer {
	t.Helper()
	port := freePort(t)
	n := &natsServer{
		t: t,
		opts: server.Options{
			ServerName: "hub-test",
			Host:       "127.0.0.1",
			Port:       port,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoLog:      true,
			NoSigs:     true,
		},
		URL: "nats://127.0.0.1:" + strconv.Itoa(port),
	}
	t.Cleanup(n.stop)
	return n
}

// startNATS returns a running server.
func startNATS(t *testing.T) *natsServer {
	n := newNATS(t)
	n.start()
	return n
}

// start starts the server on its port and store.
func (n *natsServer) start() {
	n.t.Helper()
	opts := n.opts
	srv, err := server.NewServer(&opts)
	if err != nil {
		n.t.Fatal(err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		n.t.Fatal("the NATS server did not start")
	}
	n.srv = srv
}

// stop shuts the server down, if it runs.
func (n *natsServer) stop() {
	if n.srv != nil {
		n.srv.Shutdown()
		n.srv.WaitForShutdown()
		n.srv = nil
	}
}

// restart stops the server and starts it again on the same port and store.
func (n *natsServer) restart() {
	n.stop()
	n.start()
}

// conn returns the server's client connection named name.
func (n *natsServer) conn(name string) *server.ConnInfo {
	n.t.Helper()
	connz, err := n.srv.Connz(&server.ConnzOptions{Subscriptions: true})
	if err != nil {
		n.t.Fatal(err)
	}
	for _, c := range connz.Conns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// kick closes the client connection named name from the server's side;
// the client reconnects.
func (n *natsServer) kick(name string) {
	n.t.Helper()
	c := n.conn(name)
	if c == nil {
		n.t.Fatalf("no connection %q to kick", name)
	}
	if err := n.srv.DisconnectClientByID(c.Cid); err != nil {
		n.t.Fatal(err)
	}
}
