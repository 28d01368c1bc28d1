package harness

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/chart"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/report"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// Files written under the output directory (report.HTML shows the charts
// from ChartsDir).
const (
	JSONFile  = "benchmarks.json"
	HTMLFile  = "index.html"
	ChartsDir = "charts"
)

// Write puts d into dir: benchmarks.json, charts/<set>.png for every
// measured set, and index.html.
func Write(d *schema.Doc, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, ChartsDir), 0o755); err != nil {
		return err
	}
	b, err := schema.Encode(d)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, JSONFile), b, 0o644); err != nil {
		return err
	}
	for i := range d.Sets {
		s := &d.Sets[i]
		if s.Status != schema.Measured {
			continue
		}
		png, err := chart.PNG(s, d.Goals)
		if err != nil {
			return fmt.Errorf("chart of %s: %w", s.ID, err)
		}
		if err := os.WriteFile(filepath.Join(dir, ChartsDir, s.ID+".png"), png, 0o644); err != nil {
			return err
		}
	}
	page, err := report.HTML(d)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, HTMLFile), page, 0o644)
}

// UpdateReadme rewrites the block between the markers of the README at
// file with the block generated from d; with check, it changes nothing and
// says whether the block differs.
func UpdateReadme(d *schema.Doc, file string, check bool) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	block, err := report.ReadmeBlock(d)
	if err != nil {
		return err
	}
	out, err := report.ReplaceBlock(string(b), block)
	switch {
	case err != nil:
		return err
	case !check:
		return os.WriteFile(file, []byte(out), 0o644)
	case out != string(b):
		return fmt.Errorf("the performance block of %s differs from what the JSON generates; "+
			"run `cd bench && go run ./cmd/run -readmetable`", file)
	}
	return nil
}
