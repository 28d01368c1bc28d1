package main

import (
	"strings"
	"testing"
)

func TestTablesArePerCallWithRatios(t *testing.T) {
	in := `goos: linux
BenchmarkWorkload/impl=ours/case=add-2    	1000	100.0 ns/op	0 B/op	0 allocs/op
BenchmarkWorkload/impl=ours/case=add-2    	1000	300.0 ns/op	0 B/op	0 allocs/op
BenchmarkWorkload/impl=ours/case=batch100-2	10	20000 ns/op	200.0 ns/rpc	100 B/op	20 allocs/op
BenchmarkWorkload/impl=geth/case=add-2    	10	20000 ns/op	4900 B/op	88 allocs/op
BenchmarkWorkload/impl=geth/case=batch100-2	10	800000 ns/op	8000 ns/rpc	200000 B/op	4000 allocs/op
PASS
`
	tb, err := read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	tb.print(&out)
	for _, want := range []string{
		"| add | 200 | 20000 (100.0x) |",
		"| batch100 | 200 | 8000 (40.0x) |",
		"| geomean ratio | 1x | 63.2x |",
		"| batch100 | 0.20 | 40 |",
		"| batch100 | 1 | 2000 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
}
