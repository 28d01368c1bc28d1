package tests

// openrpc_test.go checks OpenRPC discovery end to end: rpc.discover over
// HTTPS from bin/caddy, its document validated by
// @open-rpc/schema-utils-js and read by a generic client (openrpc/client.js)
// that calls every method it lists; methods hidden by the method filter
// left out; `openrpc off`.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// openrpcClient returns the command line of the generic OpenRPC client,
// node and openrpc/client.js. Without node or the client's packages (which
// tests/run installs with npm ci) the test is skipped, unless the CI
// variable is set: there they must be installed.
func openrpcClient(t *testing.T) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("openrpc", "node_modules", "@open-rpc", "schema-utils-js", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or the OpenRPC tools are missing (CI is set, so tests/run must have installed them): %v", err)
		}
		t.Skipf("node or the OpenRPC tools are missing (cd tests/openrpc && npm ci; ./tests/run does it): %v", err)
	}
	script, err := filepath.Abs(filepath.Join("openrpc", "client.js"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{node, script}
}

// clientReport is what openrpc/client.js prints.
type clientReport struct {
	Invalid  string            `json:"invalid"`
	Error    string            `json:"error"`
	Methods  []string          `json:"methods"`
	Called   []string          `json:"called"`
	Skipped  []string          `json:"skipped"`
	Failures []json.RawMessage `json:"failures"`
}

// runOpenRPCClient runs the generic client against the endpoint url and
// fails the test unless the document is valid and every call it made was
// answered without -32601 and -32602.
func runOpenRPCClient(t *testing.T, client []string, url string) clientReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client[0], append(client[1:], url)...)
	cmd.Dir = "openrpc"
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var report clientReport
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the client's report: %v (%v)\nstdout: %s\nstderr: %s", err, runErr, out, stderr.String())
	}
	switch {
	case report.Invalid != "":
		t.Fatalf("@open-rpc/schema-utils-js finds the document invalid:\n%s", report.Invalid)
	case report.Error != "":
		t.Fatalf("the client failed: %s", report.Error)
	case len(report.Failures) > 0 || runErr != nil:
		t.Fatalf("calls answered -32601 or -32602 (%v):\n%s", runErr, out)
	}
	t.Logf("the generic client called %v and skipped %v", report.Called, report.Skipped)
	if len(report.Called)+len(report.Skipped) != len(report.Methods) {
		t.Errorf("the client called %v and skipped %v of %v", report.Called, report.Skipped, report.Methods)
	}
	return report
}

// discoverDocument is the part of rpc.discover's result the tests read.
type discoverDocument struct {
	OpenRPC string `json:"openrpc"`
	Info    struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"info"`
	Methods []struct {
		Name string `json:"name"`
	} `json:"methods"`
}

func TestOpenRPCDiscoveryFromBinCaddy(t *testing.T) {
	client := openrpcClient(t)
	httpsPort, httpPort, adminPort := freePort(t), freePort(t), freePort(t)
	base := fmt.Sprintf("https://localhost:%d", httpsPort)
	caddyfile := fmt.Sprintf(`{
	admin localhost:%d
	default_bind 127.0.0.1
	skip_install_trust
	auto_https disable_redirects
	http_port %d
	https_port %d
}

https://localhost:%d {
	tls internal
	jsonrpc /rpc {
		service demo
		methods {
			deny addInt
		}
		openrpc {
			title "The demo"
			version 1.2.3
		}
	}
	jsonrpc /off {
		service demo
		openrpc off
	}
}
`, adminPort, httpPort, httpsPort, httpsPort)
	c := newClient(false, false)
	startCaddy(t, caddyfile, fmt.Sprintf("http://localhost:%d", adminPort), func() error {
		res, err := c.Post(base+"/rpc", "application/json", strings.NewReader(subtract))
		if err != nil {
			return err
		}
		res.Body.Close()
		return nil
	})

	res := rpc(t, c, base+"/rpc", `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`)
	var answer struct {
		Result discoverDocument `json:"result"`
	}
	if err := json.Unmarshal([]byte(res.body), &answer); err != nil {
		t.Fatalf("rpc.discover: %v in %s", err, res.body)
	}
	doc := answer.Result
	var names []string
	for _, m := range doc.Methods {
		names = append(names, m.Name)
	}
	if doc.OpenRPC != "1.3.2" || doc.Info.Title != "The demo" || doc.Info.Version != "1.2.3" {
		t.Errorf("openrpc %q, info %+v", doc.OpenRPC, doc.Info)
	}
	for _, want := range []string{"subtract", "sum", "demo_subscribe", "rpc.discover"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not listed: %v", want, names)
		}
	}
	if slices.Contains(names, "addInt") {
		t.Errorf("addInt, hidden by methods deny, is listed: %v", names)
	}

	off := rpc(t, c, base+"/off", `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`)
	if !strings.Contains(off.body, `"code":-32601`) {
		t.Errorf("rpc.discover with openrpc off: %s", off.body)
	}

	report := runOpenRPCClient(t, client, base+"/rpc")
	if want := []string{"demo_subscribe", "demo_unsubscribe"}; !slices.Equal(report.Skipped, want) {
		t.Errorf("the client skipped %v, want the subscription methods %v", report.Skipped, want)
	}
	if !slices.Equal(report.Methods, names) {
		t.Errorf("the client read %v, the document lists %v", report.Methods, names)
	}
}

func TestOpenRPCGenericClientCallsEveryService(t *testing.T) {
	client := openrpcClient(t)
	base := startInProcess(t) // demo, testsvc and greeter on /rpc
	report := runOpenRPCClient(t, client, base+"/rpc")
	for _, want := range []string{"greet", "introduce", "subtract", "sum", "sleep", "rpc.discover"} {
		if !slices.Contains(report.Called, want) {
			t.Errorf("the client did not call %s: %v", want, report.Called)
		}
	}
}
