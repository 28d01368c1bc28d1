package harness

import (
	"context"

	"github.com/prometheus/procfs"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/sets"
)

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
