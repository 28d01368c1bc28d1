package inprocess

import (
	"runtime"
	"testing"
)

// BenchmarkWorkload runs every implementation on each of the five requests
// alone, the five cycled, a batch of 100 per document and the five cycled
// from GOMAXPROCS goroutines. The batch also reports ns/rpc, the time per
// JSON-RPC call (ns/op divided by 100).
func BenchmarkWorkload(b *testing.B) {
	for _, impl := range All() {
		reqs := Requests(impl.Rename)
		for i, c := range Workload {
			b.Run("impl="+impl.Name+"/case="+c.Method, func(b *testing.B) {
				benchSerial(b, impl, reqs[i:i+1], 1)
			})
		}
		b.Run("impl="+impl.Name+"/case=cycled", func(b *testing.B) {
			benchSerial(b, impl, reqs, 1)
		})
		b.Run("impl="+impl.Name+"/case=batch100", func(b *testing.B) {
			benchSerial(b, impl, [][]byte{Batch(BatchSize, impl.Rename)}, BatchSize)
		})
		b.Run("impl="+impl.Name+"/case=parallel", func(b *testing.B) {
			benchParallel(b, impl, reqs)
		})
	}
}

// benchSerial sends docs in turn from one goroutine; each holds rpcs calls.
func benchSerial(b *testing.B, impl Impl, docs [][]byte, rpcs int) {
	call, done := impl.NewCaller()
	defer done()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		call(docs[i])
		if i++; i == len(docs) {
			i = 0
		}
	}
	if rpcs > 1 {
		reportPerRPC(b, rpcs)
	}
}

// benchParallel sends docs in turn from GOMAXPROCS goroutines, each with
// its own caller, made before the clock starts.
func benchParallel(b *testing.B, impl Impl, docs [][]byte) {
	callers := make(chan Caller, runtime.GOMAXPROCS(0))
	for range cap(callers) {
		call, done := impl.NewCaller()
		defer done()
		callers <- call
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		call := <-callers
		i := 0
		for pb.Next() {
			call(docs[i])
			if i++; i == len(docs) {
				i = 0
			}
		}
	})
}

// reportPerRPC adds the ns/rpc metric.
func reportPerRPC(b *testing.B, rpcs int) {
	if b.N > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rpcs), "ns/rpc")
	}
}
