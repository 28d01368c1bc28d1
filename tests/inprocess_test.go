package tests

// inprocess_test.go starts Caddy in this process with caddytest and loads
// the configuration the in-process tests share.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
)

// inProcess is the in-process Caddy's configuration, loaded once.
var inProcess struct {
	once      sync.Once
	dir       string // holds the logs
	httpsPort int
	caddyfile string
	err       error
}

// inProcessCaddyfile is the configuration of the in-process tests: the
// endpoints, with their options, that the tests call.
const inProcessCaddyfile = `{
	admin localhost:{{admin}}
	default_bind 127.0.0.1
	skip_install_trust
	auto_https disable_redirects
	http_port {{http}}
	https_port {{https}}
	grace_period 20s
	log {
		output file {{dir}}/caddy.log
		format json
	}
}

https://localhost:{{https}} {
	tls internal
	log {
		output file {{dir}}/access.log
		format json
	}
	log_append jsonrpc_method {http.jsonrpc.method}
	log_append jsonrpc_id {http.jsonrpc.id}
	log_append jsonrpc_batch_size {http.jsonrpc.batch_size}
	log_append jsonrpc_error_code {http.jsonrpc.error_code}

	jsonrpc /rpc {
		service demo
		service testsvc
		service greeter
	}
	jsonrpc /limited {
		service demo
		service testsvc
		max_request_body 1KiB
		max_batch 3
		max_response_body 200
		max_depth 4
		concurrency 2
	}
	jsonrpc /filtered {
		service demo
		methods {
			allow add* sub* get_*
			deny addInt
		}
	}
	respond /other "not JSON-RPC" 200
}
`

// startInProcess starts the in-process Caddy, if no test has yet, and
// returns the base URL of its HTTPS site.
func startInProcess(t *testing.T) string {
	t.Helper()
	inProcess.once.Do(func() {
		dir, err := os.MkdirTemp("", "caddy-jsonrpc-inprocess-")
		if err != nil {
			inProcess.err = err
			return
		}
		inProcess.dir = dir
		inProcess.httpsPort = freePort(t)
		inProcess.caddyfile = strings.NewReplacer(
			"{{admin}}", fmt.Sprint(adminPort),
			"{{http}}", fmt.Sprint(freePort(t)),
			"{{https}}", fmt.Sprint(inProcess.httpsPort),
			"{{dir}}", dir,
		).Replace(inProcessCaddyfile)
	})
	if inProcess.err != nil {
		t.Fatal(inProcess.err)
	}
	tester(t).InitServer(inProcess.caddyfile, "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	// Caddy issues the internal CA's certificate after a config is loaded;
	// a handshake before that fails ("tls: internal error").
	addr := fmt.Sprintf("localhost:%d", inProcess.httpsPort)
	eventually(t, "a TLS handshake with "+addr+" completes", func() bool { return tlsReady(addr) == nil })
	return fmt.Sprintf("https://localhost:%d", inProcess.httpsPort)
}

// tester is a caddytest.Tester talking to this process's admin endpoint.
func tester(t *testing.T) *caddytest.Tester {
	return caddytest.NewTester(t).WithDefaultOverrides(caddytest.Config{
		AdminPort:          adminPort,
		LoadRequestTimeout: 30 * time.Second,
		TestRequestTimeout: requestTimeout,
	})
}

// logFile is the path of one of the in-process Caddy's log files.
func logFile(name string) string { return filepath.Join(inProcess.dir, name) }
