package tests

// docs_natsserver_test.go checks the NATS server configuration of
// docs/nodes.md with the NATS server's own parser.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

func TestDocsNATSServerConfigIsACluster(t *testing.T) {
	b := namedBlock(t, "nats_server")
	file := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(file, []byte(b.body), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(file)
	if err != nil {
		t.Fatalf("%s: nats-server does not read it: %v", b.where(), err)
	}
	switch {
	case !opts.JetStream || opts.StoreDir == "":
		t.Errorf("%s: JetStream is not on with a store_dir", b.where())
	case opts.ServerName == "":
		t.Errorf("%s: no server_name, which a JetStream cluster needs", b.where())
	case opts.Cluster.Name == "" || opts.Cluster.Port == 0:
		t.Errorf("%s: no cluster name or port", b.where())
	case len(opts.Routes) != 3:
		t.Errorf("%s: %d routes, want the cluster's three servers", b.where(), len(opts.Routes))
	}
}
