package report

import (
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// TestReadmeBlockIsGeneratedFromTheJSON fails when the README's performance
// block is not what bench/results/benchmarks.json generates: the table is
// never typed by hand.
func TestReadmeBlockIsGeneratedFromTheJSON(t *testing.T) {
	d, err := schema.Read("../results/benchmarks.json")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("no bench/results/benchmarks.json yet: bench/run writes it")
	}
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReadmeBlock(d)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReplaceBlock(string(readme), want); err != nil || got != string(readme) {
		t.Errorf("README.md's block between %s and %s differs from what bench/results/benchmarks.json generates (%v); "+
			"run `cd bench && go run ./cmd/run -readmetable`.\n--- generated\n%s", StartMarker, EndMarker, err, want)
	}
}
