package harness

import (
	"testing"

	"github.com/prometheus/procfs"
)

func TestStealIsTheShareOfStolenTicks(t *testing.T) {
	start := procfs.CPUStat{User: 100, System: 50, Idle: 800, SoftIRQ: 10, Steal: 40, Guest: 7}
	end := procfs.CPUStat{User: 300, System: 100, Idle: 1440, SoftIRQ: 20, Steal: 140, Guest: 9}
	// 1,000 ticks went by (guest ticks not counted twice), 100 of them stolen.
	if got := stolen(start, end); got == nil || *got != 0.1 {
		t.Fatalf("steal share: %v", got)
	}
	if stolen(end, end) != nil {
		t.Error("a steal share of no time")
	}
	if stealSince(nil) != nil {
		t.Error("a steal share from an unreadable start")
	}
	if readCPUClock() == nil {
		t.Skip("no /proc/stat here")
	}
}
