package caddyproc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
)

// TestStartServesTheBenchConfig runs bin/caddy (./xcaddy.sh build at the
// repository root) with Caddyfile.bench; it is skipped without the binary.
func TestStartServesTheBenchConfig(t *testing.T) {
	const bin = "../../bin/caddy"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("no bin/caddy: build it with ./xcaddy.sh build")
	}
	c, err := Start(context.Background(), bin, "../Caddyfile.bench")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	clients, err := load.Open(load.Config{URL: c.HTTPS, HTTP2: true, Conns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer clients.Close()
	res, err := load.Run(context.Background(), load.Config{URL: c.HTTPS + "/rpc", Body: []byte(`[` + AddCall + `]`),
		Clients: clients, Duration: 50 * time.Millisecond, ExpectBody: []byte(`[` + AddAnswer + `]`)})
	if err != nil || res.CallsPerSec <= 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	if err := c.ServesWebSocket(context.Background()); err != nil {
		t.Logf("no WebSocket from this bin/caddy (the harness falls back): %v", err)
	}
	if err := c.ServesStreams(context.Background()); err != nil {
		t.Errorf("the jsonrpc app's streams: %v", err)
	}
	if v := Version(bin); !strings.HasPrefix(v, "v2.") {
		t.Errorf("version %q", v)
	}
	c.Stop()
	if !c.Proc.Exited() {
		t.Error("caddy still runs")
	}
}

// TestStartWSServesAWebSocketConfig runs bin/caddy with a Caddyfile of one
// cleartext site that reads a variable of the caller's.
func TestStartWSServesAWebSocketConfig(t *testing.T) {
	const bin = "../../bin/caddy"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("no bin/caddy: build it with ./xcaddy.sh build")
	}
	config := filepath.Join(t.TempDir(), "Caddyfile")
	os.WriteFile(config, []byte("{\n\tadmin off\n\tpersist_config off\n\tauto_https off\n}\n"+
		"http://127.0.0.1:{$BENCH_WS_PORT} {\n\tjsonrpc {$BENCH_PATH} {\n\t\tservice demo\n\t}\n}\n"), 0o644)
	c, err := StartWS(context.Background(), bin, config, []string{"BENCH_PATH=/rpc"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if !strings.HasPrefix(c.WS, "ws://127.0.0.1:") || c.ServesWebSocket(context.Background()) != nil {
		t.Errorf("WS %q", c.WS)
	}
	if ok, err := HasModule(bin, "jsonrpc.hubs.local"); !ok || err != nil {
		t.Errorf("jsonrpc.hubs.local: %v, %v", ok, err)
	}
	if ok, err := HasModule(bin, "jsonrpc.hubs"); ok || err != nil {
		t.Errorf("a prefix of a module: %v, %v", ok, err)
	}
}

func TestStartReportsAConfigThatFails(t *testing.T) {
	if _, err := Start(context.Background(), "sh", "/nonexistent"); err == nil {
		t.Fatal("no error")
	}
}
