package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/procfs"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/progress"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/sets"
)

// groupNames are the groups of sets, in the order they are measured.
var groupNames = []string{"inprocess", "http", "websocket", "stream", "client", "nodes"}

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

// setIDs returns the ids of the sets a run of the named groups produces.
func setIDs(names []string) []string {
	var out []string
	for _, g := range names {
		out = append(out, groups[g].ids...)
	}
	return append(out, "browser")
}

// measure runs the named groups of sets with env, whose Caddy is built
// from repo when it is missing, and returns the document; command is the
// command line it records.
func measure(ctx context.Context, env *sets.Env, names []string, repo, command string) (*schema.Doc, error) {
	start := time.Now()
	clock := cpuClock()
	doc := &schema.Doc{
		Schema: schema.Version, Title: "caddy-jsonrpc benchmarks", Date: start.UTC().Format(time.RFC3339),
		Quick: env.Profile.Name == "quick", Machine: describeMachine(),
		Harness: schema.Harness{Command: command, Settings: env.Profile.Settings()},
		Policy:  policy(env.Profile),
	}
	env.OpenFiles = childserve.RaiseOpenFiles()
	doc.Machine.OpenFilesLimit = env.OpenFiles
	work := 0
	for _, name := range names {
		if _, ok := groups[name]; !ok {
			return nil, fmt.Errorf("bench: no group %q: want some of %v", name, groupNames)
		}
		work += sets.Work(name, env.Profile)
	}
	if slices.ContainsFunc(names, func(n string) bool { return groups[n].caddy || n == "nodes" }) {
		if err := buildCaddy(ctx, repo, env.CaddyBin); err != nil {
			return nil, err
		}
	}
	doc.Versions = describeVersions(repo, env.CaddyBin)
	env.Bar = progress.New(os.Stderr, work)
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
	doc.Sets = append(doc.Sets, sets.Browser(filepath.Join(repo, "bench", "results", "browser.json")))
	env.Bar.Finish()
	// A run of some groups checks their goals only.
	doc.Goals = slices.DeleteFunc(sets.Goals(doc, env.Profile), func(g schema.Goal) bool { return doc.Find(g.Set) == nil })
	doc.Machine.LoadAfter = loadAverage()
	doc.Machine.CPUSteal = stolen(clock, cpuClock())
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

// proc reads /proc; on a platform without it, every reading fails and the
// machine is described by Go's runtime alone.
var proc, _ = procfs.NewDefaultFS()

// describeMachine returns the processor, CPU count, memory and the load
// average now.
func describeMachine() schema.Machine {
	m := schema.Machine{CPU: runtime.GOARCH, CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		LoadBefore: loadAverage()}
	m.CPU = cmp.Or(cpuModel(), m.CPU)
	if mem, err := proc.Meminfo(); err == nil && mem.MemTotalBytes != nil {
		m.MemoryGiB = math.Round(float64(*mem.MemTotalBytes)/(1<<30)*10) / 10
	}
	return m
}

// loadAverage reads the 1, 5 and 15 minute load averages.
func loadAverage() []float64 {
	l, err := proc.LoadAvg()
	if err != nil {
		return []float64{0, 0, 0}
	}
	return []float64{l.Load1, l.Load5, l.Load15}
}

// cpuClock reads the machine's CPU times summed over its CPUs, from
// /proc/stat; nil where the platform has none.
func cpuClock() *procfs.CPUStat {
	st, err := proc.Stat()
	if err != nil {
		return nil
	}
	return &st.CPUTotal
}

// stolen is the share of the CPU time between two readings that the
// hypervisor gave to other machines (guest time is counted within user time
// already, and not again), or nil when it cannot be told.
func stolen(start, end *procfs.CPUStat) *float64 {
	total := func(c *procfs.CPUStat) float64 {
		return c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
	}
	if start == nil || end == nil || total(end) <= total(start) {
		return nil
	}
	share := (end.Steal - start.Steal) / (total(end) - total(start))
	return &share
}

// measureSets measures each set of fs in turn and records in it the steal
// while it ran.
func measureSets(ctx context.Context, env *sets.Env, fs ...func(context.Context, *sets.Env) schema.Set) []schema.Set {
	var out []schema.Set
	for _, f := range fs {
		out = append(out, withSteal(func() []schema.Set { return []schema.Set{f(ctx, env)} })...)
	}
	return out
}

// withSteal runs f and records in each set it returns the steal while it
// ran.
func withSteal(f func() []schema.Set) []schema.Set {
	start := cpuClock()
	out := f()
	steal := stolen(start, cpuClock())
	for i := range out {
		out[i].CPUSteal = steal
	}
	return out
}

// peerModules are the modules whose versions the document records.
var peerModules = []string{
	"github.com/ethereum/go-ethereum", "github.com/creachadair/jrpc2", "github.com/goccy/go-json",
	"github.com/coder/websocket", "github.com/gobwas/ws", "gonum.org/v1/plot", "google.golang.org/grpc",
}

// describeVersions returns Go's, Caddy's, the commit's and the peers'.
func describeVersions(repo, caddyBin string) schema.Versions {
	v := schema.Versions{Go: runtime.Version(), Caddy: caddyproc.Version(caddyBin), Modules: map[string]string{}}
	if st, err := os.Stat(caddyBin); err == nil {
		v.CaddyBuilt = st.ModTime().UTC().Format(time.RFC3339)
	}
	// the short commit of repo, "-dirty" when tracked files differ from it
	out, err := exec.Command("git", "-C", repo, "describe", "--always", "--dirty", "--abbrev=12", "--exclude=*").Output()
	v.Commit = strings.TrimSpace(string(out))
	if err != nil {
		v.Commit = "unknown"
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if slices.Contains(peerModules, dep.Path) {
				v.Modules[dep.Path] = dep.Version
			}
		}
	}
	return v
}
