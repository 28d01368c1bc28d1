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
	got, err := CurrentBlock(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	if want := ReadmeBlock(d); got != want {
		t.Errorf("README.md's block between %s and %s differs from what bench/results/benchmarks.json generates; "+
			"run `cd bench && go run ./cmd/run -readmetable`.\n--- README.md\n%s\n--- generated\n%s", StartMarker, EndMarker, got, want)
	}
}
