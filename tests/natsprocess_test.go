package tests

// natsprocess_test.go is the other side of natscluster_test.go: a NATS
// server of a cluster, run in a process of its own by this test binary
// run again with natsServerEnv set, so that a test can kill it with
// SIGKILL as a crash would.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// natsServerEnv, set to a natsServerConfig in JSON, makes this test binary
// run a NATS server instead of the tests (see TestMain).
const natsServerEnv = "CADDY_JSONRPC_TESTS_NATS_SERVER"

// natsServerConfig is one server of a cluster on loopback: its name, its
// ports, the cluster ports of the others and its JetStream store.
type natsServerConfig struct {
	Name        string `json:"name"`
	Cluster     string `json:"cluster"`
	Port        int    `json:"port"`         // clients
	ClusterPort int    `json:"cluster_port"` // routes from the other servers
	HTTPPort    int    `json:"http_port"`    // monitoring
	Routes      []int  `json:"routes"`       // the other servers' cluster ports
	StoreDir    string `json:"store_dir"`
}

// options returns the server's options.
func (c natsServerConfig) options() *server.Options {
	routes := make([]string, len(c.Routes))
	for i, p := range c.Routes {
		routes[i] = "nats-route://127.0.0.1:" + strconv.Itoa(p)
	}
	return &server.Options{
		ServerName: c.Name,
		Host:       "127.0.0.1",
		Port:       c.Port,
		HTTPHost:   "127.0.0.1",
		HTTPPort:   c.HTTPPort,
		JetStream:  true,
		StoreDir:   c.StoreDir,
		Cluster:    server.ClusterOpts{Name: c.Cluster, Host: "127.0.0.1", Port: c.ClusterPort},
		Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
		NoSigs:     true,
		Logtime:    true,
	}
}

// runNATSServerProcess runs the server that config (natsServerEnv)
// describes until the process is killed or its standard input ends,
// which it does when the test process that started it exits, however it
// exits. It returns the process's exit code.
func runNATSServerProcess(config string) int {
	var c natsServerConfig
	if err := json.Unmarshal([]byte(config), &c); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", natsServerEnv, err)
		return 2
	}
	srv, err := server.NewServer(c.options())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv.ConfigureLogger()
	srv.Start()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		srv.Shutdown()
	}()
	srv.WaitForShutdown()
	return 0
}
