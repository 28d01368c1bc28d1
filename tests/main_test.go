// Package tests holds the integration tests of caddy-jsonrpc: a real Caddy
// started in process (caddytest) with the jsonrpc handler, and the bin/caddy
// binary that xcaddy.sh builds, driven as an operator would.
package tests

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	// The handler and the services the tests mount.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc"
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/tests/greeter"
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/tests/testsvc"
)

// adminPort is the admin endpoint of the in-process Caddy, one for the
// whole test binary (caddytest starts Caddy once per process).
var adminPort int

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// Run again by a test as a server of a NATS cluster (natsprocess_test.go).
	if config := os.Getenv(natsServerEnv); config != "" {
		return runNATSServerProcess(config)
	}
	// The go commands that tests run (the docs' programs, the WebAssembly
	// host) must keep the user's build and module caches and go env file,
	// which the go command finds from HOME unless told: under the temporary
	// home below they would start empty, and every build would download
	// and compile its dependencies again.
	if err := pinGoDirs(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Caddy keeps its local CA, certificates and autosaved config under
	// these directories: a temporary home keeps the user's own untouched.
	home, err := os.MkdirTemp("", "caddy-jsonrpc-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for _, v := range []string{"HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"} {
		os.Setenv(v, home)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	adminPort = l.Addr().(*net.TCPAddr).Port
	l.Close()

	code := m.Run()
	// Stop the in-process Caddy's apps (caddytest started it, if a test
	// needed it), so no listener outlives the tests.
	_ = caddy.Stop()
	if inProcess.dir != "" {
		os.RemoveAll(inProcess.dir)
	}
	return code
}

// pinGoDirs sets GOCACHE, GOMODCACHE, GOPATH and GOENV in the environment
// to what the go command resolves them to now, before HOME changes.
func pinGoDirs() error {
	vars := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}
	out, err := exec.Command("go", append([]string{"env"}, vars...)...).Output()
	if err != nil {
		return fmt.Errorf("go env: %w", err)
	}
	values := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(values) != len(vars) {
		return fmt.Errorf("go env printed %q, want %d lines", out, len(vars))
	}
	for i, v := range vars {
		os.Setenv(v, values[i])
	}
	return nil
}
