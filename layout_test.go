package caddyjsonrpc_test

// layout_test.go keeps the package graph as docs/design.md draws it and as
// the Caddy modules' layering wants it: one package per module, the modules
// importing the shared packages and never one another, the shared packages
// importing no module, and no Go file over 400 lines.

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the package table of docs/design.md")

const modulePath = "github.com/caddy-jsonrpc/caddy-jsonrpc"

// listedPackage is what `go list -json` says of a package.
type listedPackage struct {
	ImportPath string
	Doc        string
	Imports    []string
}

// listPackages lists the module's packages, with their imports of the
// module trimmed to paths relative to it.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		p.ImportPath = relative(p.ImportPath)
		var own []string
		for _, imp := range p.Imports {
			if imp == modulePath || strings.HasPrefix(imp, modulePath+"/") {
				own = append(own, relative(imp))
			}
		}
		p.Imports = own
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// relative is an import path of the module relative to it ("." for the
// module's own package).
func relative(path string) string {
	if path == modulePath {
		return "."
	}
	return strings.TrimPrefix(path, modulePath+"/")
}

// packageTable is the Markdown table of docs/design.md's package block.
func packageTable(pkgs []listedPackage) string {
	var b strings.Builder
	b.WriteString("| package | what it is | imports of this module |\n| --- | --- | --- |\n")
	for _, p := range pkgs {
		imports := "—"
		if len(p.Imports) > 0 {
			imports = "`" + strings.Join(p.Imports, "`, `") + "`"
		}
		b.WriteString("| `" + p.ImportPath + "` | " + strings.ReplaceAll(p.Doc, "|", `\|`) + " | " + imports + " |\n")
	}
	return b.String()
}

func TestDesignDrawsThePackageGraph(t *testing.T) {
	const file, start, end = "docs/design.md", "<!-- packages:start -->\n", "<!-- packages:end -->"
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(start)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", file, start, end)
	}
	want := packageTable(listPackages(t))
	if got := string(doc[i+len(start) : j]); got != want {
		if *update {
			doc = slices.Concat(doc[:i+len(start)], []byte(want), doc[j:])
			if err := os.WriteFile(file, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's package table differs from `go list`; rewrite it with `go test -run %s -update .`:\n%s",
			file, t.Name(), want)
	}
}

// modules are the packages of Caddy modules under caddymodule/: each imports
// the shared packages and no other module.
var modules = []string{
	"caddymodule/httphandler", "caddymodule/streamapp", "caddymodule/methodmatcher",
	"caddymodule/hubs/local", "caddymodule/hubs/nats", "caddymodule/upstream", "caddymodule/demo",
}

func TestModulesImportNoOtherModule(t *testing.T) {
	pkgs := listPackages(t)
	seen := 0
	for _, p := range pkgs {
		if !strings.HasPrefix(p.ImportPath, "caddymodule") {
			continue
		}
		seen++
		for _, imp := range p.Imports {
			if !slices.Contains(modules, imp) {
				continue
			}
			// The default hub is the one module the endpoint builder needs.
			if p.ImportPath == "caddymodule/internal/endpoint" && imp == "caddymodule/hubs/local" {
				continue
			}
			t.Errorf("%s imports the module %s", p.ImportPath, imp)
		}
	}
	if seen < len(modules) {
		t.Fatalf("go list found %d packages under caddymodule, fewer than its %d modules", seen, len(modules))
	}
}

func TestNoGoFileOver400Lines(t *testing.T) {
	const limit = 400
	err := filepath.WalkDir("caddymodule", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".go" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte("\n")); n > limit {
			t.Errorf("%s: %d lines, over %d: split it by job", path, n, limit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
