package tests

// docs_caddyfile_test.go adapts every Caddyfile block of README.md and
// docs/ with bin/caddy, as an operator would, and checks that each
// Caddyfile marked as half of a pair adapts to its JSON.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// asCaddyfile returns src as a whole Caddyfile: a fragment (a directive
// and its block, such as `jsonrpc /rpc { ... }`) goes into a site block.
func asCaddyfile(src string) string {
	first := firstWord(src)
	if first == "{" || strings.ContainsAny(first, ".:/") || first == "localhost" {
		return src
	}
	var b strings.Builder
	b.WriteString("example.com {\n")
	for _, l := range strings.SplitAfter(src, "\n") {
		if strings.TrimSpace(l) != "" {
			b.WriteString("\t")
		}
		b.WriteString(l)
	}
	b.WriteString("}\n")
	return b.String()
}

// testOnlyServices lists the services src mounts whose modules only this
// test binary has (tests/greeter, tests/testsvc), which bin/caddy lacks.
func testOnlyServices(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "service" {
			continue
		}
		info, err := caddy.GetModule("jsonrpc.services." + f[1])
		if err != nil {
			continue
		}
		if strings.Contains(reflect.TypeOf(info.New()).Elem().PkgPath(), "/caddy-jsonrpc/tests/") {
			out = append(out, f[1])
		}
	}
	return out
}

// adaptCaddyfile adapts src (a whole Caddyfile) with bin/caddy, or in this
// process when it mounts a service that only the tests build; it returns
// the JSON and the warnings.
func adaptCaddyfile(t *testing.T, src string) ([]byte, string, error) {
	t.Helper()
	if len(testOnlyServices(src)) > 0 {
		out, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(src), nil)
		var w []string
		for _, x := range warnings {
			w = append(w, x.String())
		}
		return out, strings.Join(w, "\n"), err
	}
	file := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCaddy(t, "adapt", "--config", file, "--adapter", "caddyfile")
	var warnings []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, `"level":"warn"`) || strings.Contains(l, "WARN") {
			warnings = append(warnings, l)
		}
	}
	if err != nil {
		return nil, strings.Join(warnings, "\n"), &adaptError{err: err, stderr: stderr}
	}
	return []byte(out), strings.Join(warnings, "\n"), nil
}

type adaptError struct {
	err    error
	stderr string
}

func (e *adaptError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.stderr) }

func TestDocsCaddyfilesAdapt(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	caddyBinary(t)
	for _, b := range blocksOf(t, "caddyfile") {
		t.Run(b.where(), func(t *testing.T) {
			_, noAdapt := b.marked("docs:no-adapt")
			_, warnings, err := adaptCaddyfile(t, asCaddyfile(b.body))
			switch {
			case noAdapt && err == nil:
				t.Errorf("%s is marked docs:no-adapt but adapts: drop the marker", b.where())
			case noAdapt:
			case err != nil:
				t.Errorf("%s does not adapt: %v\n%s", b.where(), err, b.body)
			case warnings != "":
				t.Errorf("%s adapts with warnings:\n%s", b.where(), warnings)
			}
		})
	}
}

func TestDocsCaddyfilePairsAdaptToTheirJSON(t *testing.T) {
	pairs := 0
	for _, b := range docBlocks(t) {
		for _, m := range b.markers {
			name, ok := strings.CutPrefix(m, "docs:")
			if !ok {
				continue
			}
			switch {
			case strings.HasSuffix(name, ":caddyfile"):
				pairs++
				name = strings.TrimSuffix(name, ":caddyfile")
				t.Run(name, func(t *testing.T) { checkPair(t, name) })
			case strings.HasSuffix(name, ":json"):
				// Every JSON half has its Caddyfile half.
				namedBlock(t, strings.TrimSuffix(name, ":json")+":caddyfile")
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no Caddyfile and JSON pairs in README.md and docs/")
	}
}

// checkPair fails unless the Caddyfile block marked docs:name:caddyfile
// adapts to a configuration holding the JSON block docs:name:json: the
// handler it shows, the app, or the whole configuration.
func checkPair(t *testing.T, name string) {
	t.Helper()
	cf, js := namedBlock(t, name+":caddyfile"), namedBlock(t, name+":json")
	// In this process, which has Caddy's standard modules, this project's
	// and the tests' own: TestDocsCaddyfilesAdapt adapts the same
	// Caddyfile with bin/caddy.
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(asCaddyfile(cf.body)), nil)
	if err != nil {
		t.Fatalf("%s does not adapt: %v", cf.where(), err)
	}
	if len(warnings) > 0 {
		t.Errorf("%s adapts with warnings: %v", cf.where(), warnings)
	}
	var config, want any
	if err := json.Unmarshal(adapted, &config); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(js.body), &want); err != nil {
		t.Fatalf("%s: %v", js.where(), err)
	}
	if containsValue(config, want) {
		return
	}
	closest := config
	if w, ok := want.(map[string]any); ok {
		if h, ok := w["handler"].(string); ok {
			if got := findHandler(config, h); got != nil {
				closest = got
			}
		}
	}
	b, _ := json.MarshalIndent(closest, "", "\t")
	t.Errorf("the JSON at %s is not what the Caddyfile at %s adapts to:\n%s", js.where(), cf.where(), b)
}

// containsValue reports whether want is v or a value inside it.
func containsValue(v, want any) bool {
	if reflect.DeepEqual(v, want) {
		return true
	}
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if containsValue(e, want) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if containsValue(e, want) {
				return true
			}
		}
	}
	return false
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
