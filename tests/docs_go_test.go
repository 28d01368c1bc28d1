package tests

// docs_go_test.go checks every Go block of README.md and docs/: a block
// that is a file of the repository is compared with it (readme_test.go), a
// fragment is compiled inside its template under testdata/docs, and a
// declaration is the one the code has.

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDocsGoBlocksAreAllChecked(t *testing.T) {
	for _, b := range blocksOf(t, "go") {
		_, template := b.marked("docs:go-template")
		_, decl := b.marked("docs:go-decl")
		_, program := b.marked("docs:go-run")
		if fileMarker(b) == "" && !template && !decl && !program {
			t.Errorf("%s: a Go block that no test checks: mark it with the file it is, docs:go-template, docs:go-decl or docs:go-run", b.where())
		}
	}
}

func TestDocsGoFragmentsCompile(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	// Inside the tests module, so that the fragments' imports resolve; one
	// go vet type-checks them all without linking.
	dir, err := os.MkdirTemp(".", "docsnippets")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	where := map[string]string{} // a fragment's package folder: its block
	for i, b := range blocksOf(t, "go") {
		name, ok := b.marked("docs:go-template")
		if !ok {
			continue
		}
		src, err := fillTemplate(name, b.body)
		if err != nil {
			t.Errorf("%s: %v", b.where(), err)
			continue
		}
		pkg := filepath.Join(dir, fmt.Sprintf("%s%d", name, i))
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "snippet.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		where[filepath.Base(pkg)] = b.where()
	}
	if len(where) == 0 {
		t.Fatal("no docs:go-template fragment")
	}
	if out, err := exec.Command("go", "vet", "./"+dir+"/...").CombinedOutput(); err != nil {
		t.Fatalf("a fragment does not compile (folders named after their template: %v): %v\n%s", where, err, out)
	}
}

// fillTemplate returns testdata/docs/NAME.go with its line `// snippet`
// replaced by body, indented as that line.
func fillTemplate(name, body string) ([]byte, error) {
	tmpl, err := os.ReadFile(filepath.Join("testdata", "docs", name+".go"))
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(tmpl), "\n")
	holes := 0
	var out strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) != "// snippet" {
			out.WriteString(l)
			continue
		}
		holes++
		indent := l[:len(l)-len(strings.TrimLeft(l, "\t "))]
		for _, bl := range strings.SplitAfter(body, "\n") {
			if strings.TrimSpace(bl) != "" {
				out.WriteString(indent)
			}
			out.WriteString(bl)
		}
	}
	if holes != 1 {
		return nil, fmt.Errorf("testdata/docs/%s.go holds %d lines `// snippet`, want one", name, holes)
	}
	return []byte(out.String()), nil
}

func TestDocsGoDeclarationsAreTheCode(t *testing.T) {
	decls := codeDecls(t)
	for _, b := range blocksOf(t, "go") {
		if _, ok := b.marked("docs:go-decl"); !ok {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), b.where(), "package p\n"+b.body, 0)
		if err != nil || len(f.Decls) != 1 {
			t.Errorf("%s: not one Go declaration: %v", b.where(), err)
			continue
		}
		name, text := declText(t, f.Decls[0])
		if name == "" {
			t.Errorf("%s: a declaration of no one name", b.where())
			continue
		}
		have := decls[name]
		found := false
		for _, h := range have {
			found = found || h == text
		}
		if !found {
			t.Errorf("%s: %s is not declared so in the code (%d declarations of that name):\n%s\nthe code's:\n%s",
				b.where(), name, len(have), text, strings.Join(have, "\n"))
		}
	}
}

// codeDecls returns the top-level declarations of the root module's Go
// files (tests left out), without comments, by name.
func codeDecls(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bench", "tests", "node_modules", "testdata", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if name, text := declText(t, d); name != "" {
				out[name] = append(out[name], text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// declText returns the name a declaration of one type or function
// declares, and its text as gofmt prints it without comments.
func declText(t *testing.T, d ast.Decl) (string, string) {
	t.Helper()
	var name string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			name = d.Name.Name
		}
	case *ast.GenDecl:
		if ts, ok := d.Specs[0].(*ast.TypeSpec); ok && len(d.Specs) == 1 {
			name = ts.Name.Name
		}
	}
	if name == "" {
		return "", ""
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, token.NewFileSet(), d); err != nil {
		t.Fatal(err)
	}
	return name, buf.String()
}

func TestDocsGoProgramsRun(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	var programs []block
	for _, b := range blocksOf(t, "go") {
		if _, ok := b.marked("docs:go-run"); ok {
			programs = append(programs, b)
		}
	}
	if len(programs) == 0 {
		t.Fatal("no docs:go-run program")
	}
	site := startExample(t)
	port := strings.TrimPrefix(site.base, "https://localhost:")
	for _, b := range programs {
		t.Run(b.where(), func(t *testing.T) {
			want, ok := strings.CutPrefix(b.after, "prints `")
			if !ok {
				t.Fatalf("the paragraph after the program does not say what it prints: %q", b.after)
			}
			want, _, _ = strings.Cut(want, "`")
			// The program calls what ./xcaddy.sh run serves, on port 8443;
			// the example here serves on a free port.
			src := strings.ReplaceAll(b.body, "localhost:8443", "localhost:"+port)
			if src == b.body {
				t.Fatal("the program does not call localhost:8443, which ./xcaddy.sh run serves")
			}
			dir, err := os.MkdirTemp(".", "docsprogram")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(t.TempDir(), "program")
			if out, err := exec.Command("go", "build", "-o", bin, "./"+dir).CombinedOutput(); err != nil {
				t.Fatalf("building the program: %v\n%s", err, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin).CombinedOutput()
			if err != nil {
				t.Fatalf("the program: %v\n%s", err, out)
			}
			if strings.TrimSpace(string(out)) != want {
				t.Errorf("the program printed %q; the docs say it prints %q", out, want)
			}
		})
	}
}
