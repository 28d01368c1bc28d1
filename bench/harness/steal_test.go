package harness

import "testing"

func TestStealIsTheShareOfStolenTicks(t *testing.T) {
	start := parseCPULine("cpu  100 0 50 800 0 0 10 40 7 0")
	end := parseCPULine("cpu  300 0 100 1440 0 0 20 140 9 0")
	if !start.ok || !end.ok {
		t.Fatal("a /proc/stat line was not read")
	}
	// 1,000 ticks went by (guest ticks not counted twice), 100 of them stolen.
	if got := end.total - start.total; got != 1000 {
		t.Fatalf("total ticks: %d", got)
	}
	if got := float64(end.steal-start.steal) / float64(end.total-start.total); got != 0.1 {
		t.Fatalf("steal share: %v", got)
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 2 3", "cpu 1 2 3 4 5 6 x 8"} {
		if parseCPULine(bad).ok {
			t.Errorf("%q was read as CPU times", bad)
		}
	}
	if stealSince(cpuClock{}) != nil {
		t.Error("a steal share from an unreadable start")
	}
}
