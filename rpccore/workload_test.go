package rpccore_test

// workload_test.go benchmarks the five benchmark requests of the project's
// workload, alone, cycled, in batches and in parallel.

import (
	"context"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// workload is the five benchmark requests and their answers.
var workload = []struct{ name, req, want string }{
	{"add", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, `{"jsonrpc":"2.0","result":3,"id":1}`},
	{"addInt", `{"jsonrpc":"2.0","method":"addInt","params":[1,7],"id":2}`, `{"jsonrpc":"2.0","result":8,"id":2}`},
	{"NullableFloatToNullableFloat", `{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[1.23],"id":3}`,
		`{"jsonrpc":"2.0","result":1.23,"id":3}`},
	{"Test2", `{"jsonrpc":"2.0","method":"Test2","params":[3.456],"id":4}`, `{"jsonrpc":"2.0","result":3.456,"id":4}`},
	{"StringMe", `{"jsonrpc":"2.0","method":"StringMe","params":["Foo"],"id":5}`, `{"jsonrpc":"2.0","result":"Foo","id":5}`},
}

func demoServer(tb testing.TB, opts ...rpccore.Option) *rpccore.Server {
	tb.Helper()
	s := rpccore.NewServer(opts...)
	if err := demo.Register(s); err != nil {
		tb.Fatal(err)
	}
	return s
}

// workloadBatch is a batch of n requests cycling through the workload.
func workloadBatch(n int) []byte {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = workload[i%len(workload)].req
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

func TestWorkloadAnswers(t *testing.T) {
	s := demoServer(t)
	for _, w := range workload {
		if got := string(s.Process(context.Background(), []byte(w.req), nil)); got != w.want {
			t.Errorf("%s: got %s, want %s", w.name, got, w.want)
		}
	}
	got := string(s.Process(context.Background(), workloadBatch(10), nil))
	var want []string
	for i := range 10 {
		want = append(want, workload[i%len(workload)].want)
	}
	if w := "[" + strings.Join(want, ",") + "]"; got != w {
		t.Errorf("batch: got %s, want %s", got, w)
	}
}

// TestWorkloadAllocations holds the allocation budget: none for the four
// numeric requests, one (the string) for StringMe.
func TestWorkloadAllocations(t *testing.T) {
	s := demoServer(t)
	ctx := context.Background()
	dst := make([]byte, 0, 4096)
	for _, w := range workload {
		req := []byte(w.req)
		budget := 0.0
		if w.name == "StringMe" {
			budget = 1
		}
		if got := testing.AllocsPerRun(1000, func() { dst = s.Process(ctx, req, dst[:0]) }); got > budget {
			t.Errorf("%s: %v allocations per request, budget %v", w.name, got, budget)
		}
	}
}

func BenchmarkWorkload(b *testing.B) {
	s := demoServer(b)
	ctx := context.Background()
	for _, w := range workload {
		b.Run(w.name, func(b *testing.B) {
			req := []byte(w.req)
			dst := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				dst = s.Process(ctx, req, dst[:0])
			}
		})
	}
	reqs := make([][]byte, len(workload))
	for i, w := range workload {
		reqs[i] = []byte(w.req)
	}
	b.Run("cycled", func(b *testing.B) {
		dst := make([]byte, 0, 256)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			dst = s.Process(ctx, reqs[i], dst[:0])
			if i++; i == len(reqs) {
				i = 0
			}
		}
	})
	b.Run("batch100", func(b *testing.B) {
		batch := workloadBatch(100)
		dst := make([]byte, 0, 8192)
		b.ReportAllocs()
		for b.Loop() {
			dst = s.Process(ctx, batch, dst[:0])
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/request")
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			dst := make([]byte, 0, 256)
			i := 0
			for pb.Next() {
				dst = s.Process(ctx, reqs[i], dst[:0])
				if i++; i == len(reqs) {
					i = 0
				}
			}
		})
	})
}
