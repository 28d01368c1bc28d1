package sets

// browser.go folds in the browser set, measured by another tool in
// headless Chromium and written to bench/results/browser.json.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// Browser reads file: a set in this schema, or {"sets": [...]} holding one,
// becomes the browser set as it is (group "browser"). A missing file is a
// set not yet measured; a file in another shape is kept under Source, not
// measured by this schema's rules.
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
	if got, ok := decodeSet(b); ok {
		got.ID, got.Group = "browser", "browser"
		if got.Status == "" {
			got.Status = schema.Measured
		}
		return got
	}
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		s.Note = fmt.Sprintf("not measured: bench/results/browser.json is not JSON (%v)", err)
		return s
	}
	s.Note = "bench/results/browser.json is kept under source as it was: it is not in this schema"
	s.Source = raw
	return s
}

// decodeSet decodes b as a set with series, or as a document holding one.
func decodeSet(b []byte) (schema.Set, bool) {
	strict := func(v any) bool {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		return dec.Decode(v) == nil
	}
	var s schema.Set
	if strict(&s) && len(s.Series) > 0 {
		return s, true
	}
	var doc struct {
		Sets []schema.Set `json:"sets"`
	}
	if json.Unmarshal(b, &doc) == nil && len(doc.Sets) == 1 && len(doc.Sets[0].Series) > 0 {
		return doc.Sets[0], true
	}
	return schema.Set{}, false
}
