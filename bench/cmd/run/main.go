// Command run is bench/run: it measures caddy-jsonrpc against its peers and
// against Caddy's ceiling, and writes bench/results (benchmarks.json, a
// chart per set, index.html) and the README's performance block.
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

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/harness"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/report"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/sets"
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

// run parses the flags, runs the harness and writes its output.
func run() error {
	var (
		quick  = flag.Bool("quick", false, "run every cell once, briefly, and write into a temporary directory unless -out is set")
		check  = flag.Bool("check", false, "check the written JSON: its shape, and a number in every cell")
		out    = flag.String("out", "", "output directory (default results, or a temporary directory with -quick)")
		only   = flag.String("only", "", "comma-separated groups to run: "+strings.Join(harness.Groups, ","))
		caddy  = flag.String("caddy", "../bin/caddy", "the Caddy binary, built with ../xcaddy.sh when missing")
		readme = flag.Bool("readme", true, "rewrite the performance block of ../README.md (full runs of every set into results only)")
		render = flag.String("render", "", "redraw the charts and index.html of this results directory from its JSON, "+
			"measuring nothing")
		table = flag.Bool("readmetable", false, "rewrite the performance block of ../README.md from "+
			"results/benchmarks.json, measuring nothing; with -check, only compare")
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
	if *render != "" || *table {
		d, err := schema.Read(filepath.Join(cmp.Or(*render, results), harness.JSONFile))
		switch {
		case err != nil:
			return err
		case *table:
			return harness.UpdateReadme(d, filepath.Join(repo, "README.md"), *check)
		}
		return harness.Write(d, *render)
	}
	o := harness.Options{Profile: sets.Full(), Repo: repo, Caddy: abs(*caddy),
		Browser: filepath.Join(results, "browser.json"), Command: strings.Join(append([]string{"bench/run"}, os.Args[1:]...), " ")}
	if *quick {
		o.Profile = sets.Quick()
	}
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	dir := cmp.Or(*out, results)
	if *out == "" && *quick {
		if dir, err = os.MkdirTemp("", "bench-quick-"); err != nil {
			return err
		}
	}
	dir = abs(dir)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	doc, err := harness.Run(ctx, o)
	if err != nil {
		return err
	}
	if err := harness.Write(doc, dir); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	fmt.Fprintf(os.Stderr, "bench/run: wrote %s, the charts and %s in %s\n", harness.JSONFile, harness.HTMLFile, dir)
	if *readme && !*quick && len(o.Only) == 0 && dir == results {
		if err := harness.UpdateReadme(doc, filepath.Join(repo, "README.md"), false); err != nil {
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
	d, err := schema.Read(filepath.Join(dir, harness.JSONFile))
	if err == nil {
		err = schema.Check(d, harness.SetIDs(o.Only), o.Profile.Runs)
	}
	if err != nil {
		return fmt.Errorf("-check: FAIL: %w", err)
	}
	fmt.Fprintf(os.Stderr, "bench/run -check: ok: %d sets, every cell has a number\n", len(d.Sets))
	return nil
}

// abs makes path absolute, relative to the working directory (which run
// has read already, so that filepath.Abs cannot fail).
func abs(path string) string {
	a, _ := filepath.Abs(path)
	return a
}
