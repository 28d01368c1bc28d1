package harness

import (
	"os"
	"strconv"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// cpuClock is a reading of the machine's CPU time counters.
type cpuClock struct {
	total, steal uint64
	ok           bool // the platform has the counters
}

// readCPUClock reads /proc/stat.
func readCPUClock() cpuClock {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuClock{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseCPULine(line)
}

// parseCPULine reads /proc/stat's first line, "cpu" and the user, nice,
// system, idle, iowait, irq, softirq and steal ticks summed over the CPUs
// (guest time is counted within user time already, and not again).
func parseCPULine(line string) cpuClock {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuClock{}
	}
	var c cpuClock
	for i, v := range f[1:9] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return cpuClock{}
		}
		c.total += n
		if i == 7 {
			c.steal = n
		}
	}
	c.ok = true
	return c
}

// stealSince returns the share of the CPU time since start that was
// stolen, or nil when it cannot be told.
func stealSince(start cpuClock) *float64 {
	end := readCPUClock()
	if !start.ok || !end.ok || end.total <= start.total {
		return nil
	}
	share := float64(end.steal-start.steal) / float64(end.total-start.total)
	return &share
}

// measureSets runs each of fs in turn and records in its set the steal
// while it ran.
func measureSets(fs ...func() schema.Set) []schema.Set {
	out := make([]schema.Set, len(fs))
	for i, f := range fs {
		out[i] = withSteal(func() []schema.Set { return []schema.Set{f()} })[0]
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
