package tests

// readme_test.go keeps the examples of README.md and docs/ that the other
// tests build on: the service is the one the tests mount, the client
// program the one they run, and each endpoint's JSON is what its Caddyfile
// adapts to.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// TestDocsBlocksAreTheirFiles fails when a block marked with a file's path
// (<!-- tests/greeter/greeter.go -->) differs from that file.
func TestDocsBlocksAreTheirFiles(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range docBlocks(t) {
		file := fileMarker(b)
		if file == "" {
			continue
		}
		seen[file] = true
		src, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		if b.body != string(src) {
			t.Errorf("the block at %s differs from %s", b.where(), file)
		}
	}
	for _, file := range []string{"tests/greeter/greeter.go", "tests/callfromgo/main.go"} {
		if !seen[file] {
			t.Errorf("no block of README.md or docs/ is marked <!-- %s -->", file)
		}
	}
}

func TestDocsHandlerJSONIsTheAdaptedCaddyfile(t *testing.T) {
	checkPair(t, "handler")
}

func TestDocsPolicyJSONIsTheAdaptedCaddyfile(t *testing.T) {
	for _, name := range []string{"rate_limit", "rate_limit_shared", "identity"} {
		t.Run(name, func(t *testing.T) { checkPair(t, name) })
	}
}

func TestDocsStreamsJSONIsTheAdaptedCaddyfile(t *testing.T) {
	checkPair(t, "streams")
}

func TestDocsNodesCaddyfileAdapts(t *testing.T) {
	b := namedBlock(t, "nodes")
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(b.body), nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("the two-node Caddyfile at %s: %v %v", b.where(), err, warnings)
	}
	for _, want := range []string{`"hub":"nats"`, `"urls":["nats://127.0.0.1:4222"]`, `"max_msgs":10000`} {
		if !strings.Contains(string(adapted), want) {
			t.Errorf("the adapted configuration lacks %s:\n%s", want, adapted)
		}
	}
}
