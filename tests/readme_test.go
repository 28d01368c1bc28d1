package tests

// readme_test.go keeps the README honest: its service is the one the tests
// build, and its JSON is what its Caddyfile adapts to.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// readmeBlock returns the fenced code block that follows marker in the
// README.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), marker+"\n```")
	if !ok {
		t.Fatalf("README.md has no code block after %q", marker)
	}
	_, after, _ = strings.Cut(after, "\n") // the fence's language
	block, _, ok := strings.Cut(after, "\n```\n")
	if !ok {
		t.Fatalf("the code block after %q does not end", marker)
	}
	return block + "\n"
}

func TestReadmeServiceIsTheTestedOne(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("greeter", "greeter.go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readmeBlock(t, "<!-- tests/greeter/greeter.go -->"); got != string(src) {
		t.Errorf("the README's service differs from tests/greeter/greeter.go")
	}
}

func TestReadmeJSONIsTheAdaptedCaddyfile(t *testing.T) {
	checkReadmeJSON(t, "<!-- readme:caddyfile -->", "<!-- readme:json -->")
}

// checkReadmeJSON fails unless the README's JSON block after jsonMarker is
// the jsonrpc handler that the Caddyfile block after caddyfileMarker
// adapts to.
func checkReadmeJSON(t *testing.T, caddyfileMarker, jsonMarker string) {
	t.Helper()
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(readmeBlock(t, caddyfileMarker)), nil)
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
	if got == nil {
		t.Fatalf("no jsonrpc handler in %s", adapted)
	}
	var want any
	if err := json.Unmarshal([]byte(readmeBlock(t, jsonMarker)), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		b, _ := json.MarshalIndent(got, "", "\t")
		t.Errorf("the README's JSON after %s differs from the handler its Caddyfile adapts to:\n%s", jsonMarker, b)
	}
}

// findHandler returns the first object of a JSON value whose "handler" is name.
func findHandler(v any, name string) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		if v["handler"] == name {
			return v
		}
		for _, e := range v {
			if h := findHandler(e, name); h != nil {
				return h
			}
		}
	case []any:
		for _, e := range v {
			if h := findHandler(e, name); h != nil {
				return h
			}
		}
	}
	return nil
}

func TestReadmeClientProgramIsTheTestedOne(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("callfromgo", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readmeBlock(t, "<!-- tests/callfromgo/main.go -->"); got != string(src) {
		t.Errorf("the README's client program differs from tests/callfromgo/main.go")
	}
}

func TestReadmePolicyJSONIsTheAdaptedCaddyfile(t *testing.T) {
	for _, section := range []string{"rate_limit", "rate_limit_shared", "identity"} {
		t.Run(section, func(t *testing.T) {
			checkReadmeJSON(t, "<!-- readme:"+section+":caddyfile -->", "<!-- readme:"+section+":json -->")
		})
	}
}

func TestReadmeNodesCaddyfileAdapts(t *testing.T) {
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(readmeBlock(t, "<!-- readme:nodes -->")), nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("the README's two-node Caddyfile: %v %v", err, warnings)
	}
	for _, want := range []string{`"hub":"nats"`, `"urls":["nats://127.0.0.1:4222"]`, `"max_msgs":10000`} {
		if !strings.Contains(string(adapted), want) {
			t.Errorf("the adapted configuration lacks %s:\n%s", want, adapted)
		}
	}
}
