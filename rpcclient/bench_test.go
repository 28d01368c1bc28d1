package rpcclient

import (
	"context"
	"testing"
)

// BenchmarkCall makes one call at a time over TCP (the server runs in the
// same process: allocations count both sides).
func BenchmarkCall(b *testing.B) {
	c := dialTest(b, startStreamServer(b, newTestRPCServer(b)).url())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var r float64
		if err := c.Call(ctx, &r, "add", 1, 2); err != nil || r != 3 {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkCallParallel makes calls from many goroutines at once over one
// TCP connection: they leave and come back together.
func BenchmarkCallParallel(b *testing.B) {
	c := dialTest(b, startStreamServer(b, newTestRPCServer(b)).url())
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(128)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var r float64
			if err := c.Call(ctx, &r, "add", 1, 2); err != nil || r != 3 {
				b.Error(r, err)
				return
			}
		}
	})
}

// BenchmarkCallT is BenchmarkCallParallel through CallT.
func BenchmarkCallT(b *testing.B) {
	c := dialTest(b, startStreamServer(b, newTestRPCServer(b)).url())
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(128)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if r, err := CallT[float64](ctx, c, "add", 1, 2); err != nil || r != 3 {
				b.Error(r, err)
				return
			}
		}
	})
}

// BenchmarkGoCall keeps 128 calls in flight from one goroutine, reusing
// them.
func BenchmarkGoCall(b *testing.B) {
	c := dialTest(b, startStreamServer(b, newTestRPCServer(b)).url())
	ctx := context.Background()
	const inFlight = 128
	done := make(chan *AsyncCall, inFlight)
	results := make([]float64, inFlight)
	b.ReportAllocs()
	for i := range inFlight {
		c.GoCall(ctx, &AsyncCall{Method: "add", Result: &results[i], Done: done}, 1, 2)
	}
	b.ResetTimer()
	for b.Loop() {
		a := <-done
		if a.Error != nil {
			b.Fatal(a.Error)
		}
		c.GoCall(ctx, a, 1, 2)
	}
	b.StopTimer()
	for range inFlight {
		<-done
	}
}
