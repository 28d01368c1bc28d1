package sets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// Browser reads file, the rows the WebAssembly host's benchmark writes, as
// the browser set, one cell per row. A missing file is a set not yet
// measured; a file in another shape is kept under Source, not measured.
func Browser(file string) schema.Set {
	s := schema.Set{
		ID: "browser", Group: "browser", Status: schema.NotMeasured,
		Title:   "In the browser: rpccore compiled to WebAssembly, in headless Chromium",
		Harness: "measured by the WebAssembly host's benchmark in headless Chromium, written to bench/results/browser.json",
		Metric:  schema.Metric{Name: "us_per_call", Unit: "µs per call", Better: schema.Lower},
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		s.Note = "not yet measured: bench/results/browser.json does not exist"
		return s
	}
	if err != nil {
		s.Note = "not measured: " + err.Error()
		return s
	}
	if got, ok := decodeRows(b, s); ok {
		return got
	}
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		s.Note = fmt.Sprintf("not measured: bench/results/browser.json is not JSON (%v)", err)
		return s
	}
	s.Note, s.Source = "bench/results/browser.json is kept under source as it was: it is not in this schema", raw
	return s
}

// decodeRows turns the benchmark's rows into the set s: µs per call drawn,
// calls per second kept as a second metric, one run per row.
func decodeRows(b []byte, s schema.Set) (schema.Set, bool) {
	var r struct {
		Date, Browser, Mode string
		Rows                []struct {
			Name      string
			UsPerCall float64 `json:"us_per_call"`
			RPCPerS   float64 `json:"rpc_per_s"`
		}
	}
	if json.Unmarshal(b, &r) != nil || len(r.Rows) == 0 {
		return s, false
	}
	us := series("ours", "ours (rpccore in WebAssembly)", schema.Ours, "us_per_call", "µs per call")
	rps := series("ours", "ours (rpccore in WebAssembly)", schema.Ours, "rpc_per_s", "calls per second")
	s.Cells = nil
	for _, row := range r.Rows {
		if row.Name == "" || row.UsPerCall <= 0 || row.RPCPerS <= 0 {
			return s, false
		}
		s.Cells = append(s.Cells, row.Name)
		us.Points = append(us.Points, schema.NewPoint(row.Name, []float64{row.UsPerCall}))
		rps.Points = append(rps.Points, schema.NewPoint(row.Name, []float64{row.RPCPerS}))
	}
	s.Status = schema.Measured
	s.Metric.Log = true
	s.XLabel = "path from JavaScript to the server"
	s.Series = []schema.Series{us, rps}
	s.Harness = fmt.Sprintf("the WebAssembly host's benchmark page in headless %s (%s mode, %s), one run per row, "+
		"read from bench/results/browser.json", r.Browser, r.Mode, r.Date)
	s.Note = "rows named \"direct\" call the exported functions without syscall/js; \"Go loop\" is the server in a Go " +
		"loop inside the page with no interop; fetch and WebSocket rows go over the network to Caddy"
	return s, true
}
