package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/progress"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/sets"
)

// Options configures a run.
type Options struct {
	Profile sets.Profile // sets durations and counts
	Repo    string       // the repository root; bench/ is below it
	Caddy   string       // the Caddy binary, built with Repo/xcaddy.sh when missing
	Browser string       // the browser set's file, written by another tool
	// Only, when not empty, limits the run to these groups: inprocess,
	// http, websocket, stream, client, nodes.
	Only    []string
	Command string // the command line recorded in the document
}

// Groups are the groups of sets the harness measures, in order.
var Groups = []string{"inprocess", "http", "websocket", "stream", "client", "nodes"}

// group is one group of sets: their ids, whether they measure a Caddy of
// their own (started fresh for the group, so that no group measures a
// server another has loaded), and how to run them.
type group struct {
	ids   []string
	caddy bool
	run   func(ctx context.Context, env *sets.Env) ([]schema.Set, error)
}

var groups = map[string]group{
	"inprocess": {ids: []string{"inprocess"}, run: func(ctx context.Context, env *sets.Env) ([]schema.Set, error) {
		return measureSets(ctx, env, sets.InProcess), nil
	}},
	"http": {ids: []string{"http", "http_batch"}, caddy: true,
		run: func(ctx context.Context, env *sets.Env) ([]schema.Set, error) {
			return withSteal(func() []schema.Set { return sets.HTTP(ctx, env) }), nil
		}},
	"websocket": {ids: []string{"ws_pipelined", "ws_broadcast", "ws_memory"}, caddy: true,
		run: func(ctx context.Context, env *sets.Env) ([]schema.Set, error) {
			ws, err := sets.NewWebSocket(ctx, env)
			if err != nil {
				return nil, err
			}
			defer ws.Close()
			return measureSets(ctx, env, ws.Pipelined, ws.Broadcast, ws.Memory), nil
		}},
	"stream": {ids: []string{"stream_pipelined", "stream_blocking", "stream_grpc", "stream_flood", "stream_memory"},
		caddy: true, run: func(ctx context.Context, env *sets.Env) ([]schema.Set, error) {
			st, err := sets.NewStream(ctx, env)
			if err != nil {
				return nil, err
			}
			defer st.Close()
			return measureSets(ctx, env, st.Pipelined, st.Blocking, st.GRPC, st.Streaming, st.Memory), nil
		}},
	"client": {ids: []string{"client_pipelined"}, run: func(ctx context.Context, env *sets.Env) ([]schema.Set, error) {
		// Its server is a child process, not Caddy.
		env.Bar.Start("starting the server of the Go clients")
		c, err := sets.NewClients(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		return measureSets(ctx, env, c.Pipelined), nil
	}},
	// The nodes set starts its own nats-server and Caddy nodes.
	"nodes": {ids: []string{"nodes_broadcast"}, run: func(ctx context.Context, env *sets.Env) ([]schema.Set, error) {
		return measureSets(ctx, env, sets.Nodes), nil
	}},
}

// SetIDs returns the ids of the sets a run of groups produces (of every
// group when names is empty).
func SetIDs(names []string) []string {
	if len(names) == 0 {
		names = Groups
	}
	var out []string
	for _, g := range names {
		out = append(out, groups[g].ids...)
	}
	return append(out, "browser")
}

// Run measures every set and returns the document.
func Run(ctx context.Context, o Options) (*schema.Doc, error) {
	start := time.Now()
	clock := readCPUClock()
	names := Groups
	if len(o.Only) > 0 {
		names = o.Only
	}
	doc := &schema.Doc{
		Schema: schema.Version, Title: "caddy-jsonrpc benchmarks", Date: start.UTC().Format(time.RFC3339),
		Quick: o.Profile.Name == "quick", Machine: describeMachine(),
		Harness: schema.Harness{Command: o.Command, Settings: o.Profile.Settings()},
		Policy:  policy(o.Profile),
	}
	doc.Machine.OpenFilesLimit = childserve.RaiseOpenFiles()
	work := 0
	for _, name := range names {
		if _, ok := groups[name]; !ok {
			return nil, fmt.Errorf("bench: no group %q: want some of %v", name, Groups)
		}
		work += sets.Work(name, o.Profile)
	}
	if slices.ContainsFunc(names, func(n string) bool { return groups[n].caddy || n == "nodes" }) {
		if err := buildCaddy(ctx, o.Repo, o.Caddy); err != nil {
			return nil, err
		}
	}
	doc.Versions = describeVersions(o.Repo, o.Caddy)
	env := &sets.Env{Profile: o.Profile, Bar: progress.New(os.Stderr, work), CaddyBin: o.Caddy, OpenFiles: doc.Machine.OpenFilesLimit,
		CaddyConfig: filepath.Join(o.Repo, "bench", "Caddyfile.bench"),
		NodesConfig: filepath.Join(o.Repo, "bench", "Caddyfile.nodes")}
	for _, name := range names {
		g := groups[name]
		if g.caddy {
			env.Bar.Start("starting Caddy")
			if env.Caddy, env.CaddyErr = caddyproc.Start(ctx, env.CaddyBin, env.CaddyConfig); env.CaddyErr != nil {
				env.Bar.Note("bench: Caddy did not start: %v", env.CaddyErr)
			}
		}
		measured, err := g.run(ctx, env)
		for _, id := range g.ids[len(measured):] { // none when run returned every set
			measured = append(measured, schema.Set{ID: id, Group: name, Title: id, Status: schema.Failed, Error: err.Error()})
		}
		doc.Sets = append(doc.Sets, measured...)
		if env.Caddy != nil {
			env.Caddy.Stop()
			env.Caddy = nil
		}
	}
	doc.Sets = append(doc.Sets, sets.Browser(o.Browser))
	env.Bar.Finish()
	for _, g := range sets.Goals(doc, o.Profile) {
		// A run of some groups checks their goals only.
		if len(o.Only) == 0 || doc.Find(g.Set) != nil {
			doc.Goals = append(doc.Goals, g)
		}
	}
	doc.Machine.LoadAfter = loadAverage()
	doc.Machine.CPUSteal = stealSince(clock)
	doc.Harness.Seconds = float64(time.Since(start).Round(100*time.Millisecond)) / float64(time.Second)
	return doc, nil
}

// buildCaddy runs xcaddy.sh build in repo, its output on stderr, unless bin
// is an executable already.
func buildCaddy(ctx context.Context, repo, bin string) error {
	if st, err := os.Stat(bin); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
		return nil
	}
	fmt.Fprintln(os.Stderr, "bench: bin/caddy is missing; building it with ./xcaddy.sh build")
	cmd := exec.CommandContext(ctx, filepath.Join(repo, "xcaddy.sh"), "build")
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bench: ./xcaddy.sh build: %w", err)
	}
	return nil
}

// policy states how the figures were made and how to read them.
func policy(p sets.Profile) []string {
	out := []string{
		fmt.Sprintf("Every cell is warmed up, then timed: %s (broadcast: %s, each a run); a point's median is the "+
			"median of its runs, low and high the lowest and the highest run.",
			sets.Count(p.Runs, "run", "runs"), sets.Count(p.BroadcastRuns, "message", "messages")),
		"In process, the runs are passes over every implementation and cell in turn, so a busy phase of the machine " +
			"falls on all of them alike; over HTTPS, respond, one call per POST and the batch take turns in short " +
			"slices on the same connections (respond, one call, the batch, the batch, one call, respond), each slice " +
			"a run (two of each target per round), and the HTTPS goals read the median of the ratios of the slices " +
			"side by side.",
		"A comparison's ratio says how many times better ours is: the peer's figure divided by ours for times and " +
			"sizes, ours divided by the peer's for rates; above 1, ours is ahead. Its low and high pair the n-th run " +
			"of each.",
		"Every answer is checked. Servers and the load generator (Go code in bench/) run on the same machine and " +
			"talk over loopback only; the machine may be shared with other work, so the load averages before and " +
			"after the run are recorded.",
	}
	if p.Name == "quick" {
		out = append(out, "This is a quick run: every cell timed once, briefly. It proves the harness works end to "+
			"end and says nothing of speed.")
	}
	return out
}
