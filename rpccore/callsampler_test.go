package rpccore

import "testing"

func TestCallSamplerTimesOneInNWithoutFollowingTheCallsOrder(t *testing.T) {
	const n, calls = 8, 160000
	var c callSampler
	if !c.next(n) {
		t.Fatal("the first call was not timed")
	}
	// Two methods called in turn: a sampler counting every eighth call
	// would time only one of them.
	var timed [2]int
	for i := range calls {
		if c.next(n) {
			timed[i%2]++
		}
	}
	total := timed[0] + timed[1]
	if want := calls / n; total < want*95/100 || total > want*105/100 {
		t.Fatalf("%d of %d calls timed, want about %d", total, calls, want)
	}
	for m, k := range timed {
		if k < total*45/100 {
			t.Errorf("method %d: %d of the %d calls timed", m, k, total)
		}
	}
}
