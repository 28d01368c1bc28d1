package main

import (
	"strings"
	"testing"
)

func TestReportTakesMediansAndRatios(t *testing.T) {
	in := `
{"label":"h2:static:single","proto":"HTTP/2.0","conns":64,"requests_per_s":1000,"calls_per_s":1000}
{"label":"h2:static:single","proto":"HTTP/2.0","conns":64,"requests_per_s":3000,"calls_per_s":3000}
{"label":"h2:static:single","proto":"HTTP/2.0","conns":64,"requests_per_s":2000,"calls_per_s":2000}
{"label":"h2:rpc:single","proto":"HTTP/2.0","conns":64,"requests_per_s":1900,"calls_per_s":1900}
{"label":"h2:rpc:single","proto":"HTTP/2.0","conns":64,"requests_per_s":1500,"calls_per_s":1500}
{"label":"h2:rpc:single","proto":"HTTP/2.0","conns":64,"requests_per_s":2200,"calls_per_s":2200}
{"label":"h2:rpc:batch100","proto":"HTTP/2.0","conns":64,"requests_per_s":950,"calls_per_s":95000}
`
	cells, protos, err := read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	report(&out, cells, protos)
	row := strings.Split(strings.TrimSpace(out.String()), "\n")[2]
	for _, want := range []string{"| HTTP/2.0 | 64 | 2000 | 1900 | 0.95x | 950 | 95000 | 50.00x | 1.90x, 0.50x, 1.10x |"} {
		if !strings.HasPrefix(row, want) {
			t.Errorf("row %q, want prefix %q", row, want)
		}
	}
}
