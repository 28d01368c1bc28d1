package caddyproc

import (
	"context"
	"os"
	"strings"
	"testing"

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
	res, err := load.Run(context.Background(), load.Config{URL: c.HTTPS + "/rpc", Body: []byte(`[` + AddCall + `]`),
		Requests: 2, HTTP2: true, Insecure: true, ExpectBody: []byte(`[` + AddAnswer + `]`)})
	if err != nil || res.Errors > 0 {
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
	pid := c.Proc.PID()
	c.Stop()
	if !c.Proc.Exited() {
		t.Errorf("caddy %d still runs", pid)
	}
}

func TestStartReportsAConfigThatFails(t *testing.T) {
	if _, err := Start(context.Background(), "sh", "/nonexistent"); err == nil {
		t.Fatal("no error")
	}
}
