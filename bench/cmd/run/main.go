// Command run is bench/run: it runs every set of package sets under a profile
// (full or quick), measuring caddy-jsonrpc against its peers and against Caddy's
// ceiling, describes the machine and the versions measured, checks the goals, and
// writes bench/results (benchmarks.json, a chart per set, index.html) and the
// README's performance block.
//
//	bench/run                 every set, every cell warmed up and timed 5 times (about 10 minutes)
//	bench/run -quick          every cell once, briefly (under a minute), into a temporary directory
//	bench/run -quick -check   the same, then check the JSON's shape and that every cell has a number
//	go run ./cmd/run -render results          redraw the charts and index.html of results from its JSON
//	go run ./cmd/run -readmetable [-check]    rewrite (or only compare) the README's block from results/benchmarks.json
//
// It runs from the bench directory (the script bench/run changes to it) and
// builds ../bin/caddy with ../xcaddy.sh when it is missing. As
// `run serve <impl>` it is a server in a child process (package childserve).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/chart"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/report"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/sets"
)

// The files written under the output directory (report.HTML shows the
// charts from chartsDir).
const (
	jsonFile  = "benchmarks.json"
	htmlFile  = "index.html"
	chartsDir = "charts"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == childserve.Subcommand {
		os.Exit(childserve.Main(os.Args[2:]))
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/run:", err)
		os.Exit(1)
	}
}

// run parses the flags, runs the sets and writes their output.
func run() error {
	var (
		quick  = flag.Bool("quick", false, "run every cell once, briefly, and write into a temporary directory unless -out is set")
		check  = flag.Bool("check", false, "check the written JSON: its shape, and a number in every cell")
		out    = flag.String("out", "", "output directory (default results, or a temporary directory with -quick)")
		only   = flag.String("only", "", "comma-separated groups to run: "+strings.Join(groupNames, ","))
		render = flag.String("render", "", "redraw the charts and index.html of this results directory from its JSON")
		table  = flag.Bool("readmetable", false, "rewrite the README's block from results/benchmarks.json (with -check, compare)")
	)
	flag.Parse()
	bench, err := os.Getwd()
	if err == nil {
		_, err = os.Stat(filepath.Join(bench, "Caddyfile.bench"))
	}
	if err != nil {
		return fmt.Errorf("run it from the bench directory (bench/run does): %w", err)
	}
	repo, results := filepath.Dir(bench), filepath.Join(bench, "results")
	readme := filepath.Join(repo, "README.md")
	if *render != "" || *table {
		d, err := schema.Read(filepath.Join(cmp.Or(*render, results), jsonFile))
		switch {
		case err != nil:
			return err
		case *table:
			return updateReadme(d, readme, *check)
		}
		return write(d, *render)
	}
	env := &sets.Env{Profile: sets.Full(), CaddyBin: filepath.Join(repo, "bin", "caddy"),
		CaddyConfig: filepath.Join(bench, "Caddyfile.bench"), NodesConfig: filepath.Join(bench, "Caddyfile.nodes")}
	if *quick {
		env.Profile = sets.Quick()
	}
	names := groupNames
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	dir := cmp.Or(*out, results)
	if *out == "" && *quick {
		if dir, err = os.MkdirTemp("", "bench-quick-"); err != nil {
			return err
		}
	}
	dir, _ = filepath.Abs(dir) // Getwd succeeded above, so Abs cannot fail

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	doc, err := measure(ctx, env, names, repo, strings.Join(append([]string{"bench/run"}, os.Args[1:]...), " "))
	if err != nil {
		return err
	}
	if err := write(doc, dir); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	fmt.Fprintf(os.Stderr, "bench/run: wrote %s, the charts and %s in %s\n", jsonFile, htmlFile, dir)
	if !*quick && *only == "" && dir == results {
		if err := updateReadme(doc, readme, false); err != nil {
			return fmt.Errorf("README.md: %w", err)
		}
		fmt.Fprintln(os.Stderr, "bench/run: rewrote the performance block of README.md")
	}
	for _, row := range report.GoalsTable(doc, true).Rows {
		fmt.Fprintf(os.Stderr, "  %-8s %s: %s (%s)\n", row[3], row[0], row[2], row[4])
	}
	if !*check {
		return nil
	}
	d, err := schema.Read(filepath.Join(dir, jsonFile))
	if err == nil {
		err = schema.Check(d, setIDs(names), env.Profile.Runs)
	}
	if err != nil {
		return fmt.Errorf("-check: FAIL: %w", err)
	}
	fmt.Fprintf(os.Stderr, "bench/run -check: ok: %d sets, every cell has a number\n", len(d.Sets))
	return nil
}

// write puts d into dir: benchmarks.json, charts/<set>.png for every
// measured set, and index.html.
func write(d *schema.Doc, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, chartsDir), 0o755); err != nil {
		return err
	}
	b, err := schema.Encode(d)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, jsonFile), b, 0o644); err != nil {
		return err
	}
	for i := range d.Sets {
		if s := &d.Sets[i]; s.Status == schema.Measured {
			png, err := chart.PNG(s, d.Goals)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, chartsDir, s.ID+".png"), png, 0o644)
			}
			if err != nil {
				return fmt.Errorf("chart of %s: %w", s.ID, err)
			}
		}
	}
	page, err := report.HTML(d)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, htmlFile), page, 0o644)
}

// updateReadme rewrites the block between the markers of the README at file
// with the block generated from d; with check, it changes nothing and says
// whether the block differs.
func updateReadme(d *schema.Doc, file string, check bool) error {
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
