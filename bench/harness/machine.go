package harness

import (
	"math"
	"runtime"

	"github.com/prometheus/procfs"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
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
