package harness

import (
	"context"
	"math"
	"runtime"

	"github.com/prometheus/procfs"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/sets"
)

// proc reads /proc; on a platform without it, every reading fails and the
// machine is described by Go's runtime alone.
var proc, _ = procfs.NewDefaultFS()

// describeMachine returns the processor, CPU count, memory and the load
// average now.
func describeMachine() schema.Machine {
	m := schema.Machine{CPU: runtime.GOARCH, CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		LoadBefore: loadAverage()}
	if cpus, err := proc.CPUInfo(); err == nil && len(cpus) > 0 && cpus[0].ModelName != "" {
		m.CPU = cpus[0].ModelName
	}
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

// readCPUClock reads the machine's CPU times summed over its CPUs, from
// /proc/stat; nil where the platform has none.
func readCPUClock() *procfs.CPUStat {
	st, err := proc.Stat()
	if err != nil {
		return nil
	}
	return &st.CPUTotal
}

// stolen is the share of the CPU time between two readings that the
// hypervisor gave to other machines (guest time is counted within user time
// already, and not again), or nil when it cannot be told.
func stolen(start, end procfs.CPUStat) *float64 {
	total := func(c procfs.CPUStat) float64 {
		return c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
	}
	if total(end) <= total(start) {
		return nil
	}
	share := (end.Steal - start.Steal) / (total(end) - total(start))
	return &share
}

// stealSince returns the share of the CPU time since start that was
// stolen, or nil when it cannot be told.
func stealSince(start *procfs.CPUStat) *float64 {
	if end := readCPUClock(); start != nil && end != nil {
		return stolen(*start, *end)
	}
	return nil
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
	start := readCPUClock()
	out := f()
	steal := stealSince(start)
	for i := range out {
		out[i].CPUSteal = steal
	}
	return out
}
