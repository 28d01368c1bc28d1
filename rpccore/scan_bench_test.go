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
