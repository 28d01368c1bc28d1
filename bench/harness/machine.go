package harness

import (
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// describeMachine returns the processor, CPU count, memory and the load
// average now.
func describeMachine() schema.Machine {
	return schema.Machine{
		CPU:        cpuModel(),
		CPUs:       runtime.NumCPU(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		MemoryGiB:  memoryGiB(),
		LoadBefore: loadAverage(),
	}
}

// cpuModel reads the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// memoryGiB reads MemTotal from /proc/meminfo.
func memoryGiB() float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return float64(int(kb/(1<<20)*10+0.5)) / 10
			}
		}
	}
	return 0
}

// loadAverage reads the 1, 5 and 15 minute load averages.
func loadAverage() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return []float64{0, 0, 0}
	}
	f := strings.Fields(string(b))
	out := make([]float64, 3)
	for i := range min(3, len(f)) {
		out[i], _ = strconv.ParseFloat(f[i], 64)
	}
	return out
}
