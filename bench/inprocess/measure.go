package inprocess

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Cost is what one measurement found, per JSON-RPC call.
type Cost struct {
	NsPerCall float64 // the wall time divided by the calls of all goroutines
	// BytesPerCall and AllocsPerCall are the heap bytes and allocations of
	// the whole process divided by the calls.
	BytesPerCall  float64
	AllocsPerCall float64
}

// Measure sends docs in turn, each holding callsPerDoc calls, from
// goroutines goroutines, each with its own caller made before the clock
// starts, for about d. Like testing.B it collects garbage first and counts
// the allocations of the whole process.
func Measure(impl Impl, docs [][]byte, callsPerDoc, goroutines int, d time.Duration) Cost {
	callers := make([]Caller, goroutines)
	for i := range callers {
		call, done := impl.NewCaller()
		defer done()
		callers[i] = call
	}
	// Check the clock every few documents: often enough that no goroutine
	// runs on alone for long, rarely enough that reading it costs nothing.
	every := 16
	if callsPerDoc > 1 {
		every = 1
	}
	var docsSent atomic.Int64
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for _, call := range callers {
		wg.Go(func() {
			var n int64
			j := 0
			for {
				for range every {
					call(docs[j])
					if j++; j == len(docs) {
						j = 0
					}
				}
				n += int64(every)
				if !time.Now().Before(deadline) {
					break
				}
			}
			docsSent.Add(n)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)

	calls := docsSent.Load() * int64(callsPerDoc)
	return Cost{
		NsPerCall:     float64(elapsed.Nanoseconds()) / float64(calls),
		BytesPerCall:  float64(after.TotalAlloc-before.TotalAlloc) / float64(calls),
		AllocsPerCall: float64(after.Mallocs-before.Mallocs) / float64(calls),
	}
}
