package tests

// upstream_readme_test.go keeps the README's Upstreams section honest: its
// JSON is what its Caddyfile adapts to, and bin/caddy has the module.

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
)

func TestReadmeUpstreamJSONIsTheAdaptedCaddyfile(t *testing.T) {
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(
		[]byte(readmeBlock(t, "<!-- readme:upstream-caddyfile -->")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	var config any
	if err := json.Unmarshal(adapted, &config); err != nil {
		t.Fatal(err)
	}
	got := findHandler(config, "jsonrpc")
	var want any
	if err := json.Unmarshal([]byte(readmeBlock(t, "<!-- readme:upstream-json -->")), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		b, _ := json.MarshalIndent(got, "", "\t")
		t.Errorf("the README's upstream JSON differs from the adapted Caddyfile's handler:\n%s", b)
	}
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
