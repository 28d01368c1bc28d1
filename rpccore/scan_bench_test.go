package rpccore

// scan_bench_test.go measures the validating scan alone.

import "testing"

func BenchmarkParseDocument(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[1.23],"id":3}`)
	for b.Loop() {
		var d document
		parseDocument(req, &d)
	}
}

// BenchmarkScan scans each of the five benchmark requests (workload_test.go
// runs them whole) and the five cycled.
func BenchmarkScan(b *testing.B) {
	reqs := []struct{ name, req string }{
		{"add", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`},
		{"addInt", `{"jsonrpc":"2.0","method":"addInt","params":[1,7],"id":2}`},
		{"NullableFloatToNullableFloat", `{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[1.23],"id":3}`},
		{"Test2", `{"jsonrpc":"2.0","method":"Test2","params":[3.456],"id":4}`},
		{"StringMe", `{"jsonrpc":"2.0","method":"StringMe","params":["Foo"],"id":5}`},
	}
	docs := make([][]byte, len(reqs))
	for i, r := range reqs {
		docs[i] = []byte(r.req)
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var d document
				if !parseDocument(docs[i], &d) {
					b.Fatal("not valid")
				}
			}
		})
	}
	b.Run("cycled", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			var d document
			parseDocument(docs[i], &d)
			if i++; i == len(docs) {
				i = 0
			}
		}
	})
}
