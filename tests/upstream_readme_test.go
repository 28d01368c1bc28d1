package tests

// upstream_readme_test.go keeps docs/upstreams.md honest: its JSON is what
// its Caddyfile adapts to, and bin/caddy has the module.

import (
	"strings"
	"testing"
)

func TestDocsUpstreamJSONIsTheAdaptedCaddyfile(t *testing.T) {
	checkPair(t, "upstream")
}

func TestBinaryListsTheUpstreamModule(t *testing.T) {
	out, stderr, err := runCaddy(t, "list-modules")
	if err != nil {
		t.Fatalf("list-modules: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "jsonrpc.services.upstream\n") {
		t.Errorf("list-modules does not list jsonrpc.services.upstream:\n%s", out)
	}
}
