// Package inprocess compares JSON-RPC 2.0 servers inside one process on the
// five benchmark requests: this project's rpccore, go-ethereum's rpc,
// creachadair/jrpc2, and plain dispatchers built on encoding/json and on
// github.com/goccy/go-json.
//
// Every implementation is an Impl, reached through Callers (one per
// goroutine), so that the benchmarks and the answer checks treat them alike.
package inprocess

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Caller sends one request document and returns the response document. The
// returned bytes are valid until the next call. A Caller is used by one
// goroutine at a time.
type Caller func(req []byte) []byte

// Impl is one JSON-RPC server implementation under test.
type Impl struct {
	Name string // names the implementation in benchmark names
	// Rename maps a workload method name to the name this implementation
	// serves it under; nil when the names are the same.
	Rename func(string) string
	// NewCaller returns a Caller for one goroutine and a function that
	// releases what it holds.
	NewCaller func() (Caller, func())
}

// All returns every implementation, ours first.
func All() []Impl {
	return append([]Impl{Ours(), OursTraced(), Geth(), JRPC2()}, Plain()...)
}

// Call is one of the five benchmark requests.
type Call struct {
	Method string // the method name as the workload spells it
	Params string // the encoded params array
	Result string // the encoded result the answer must carry
}

// Workload is the five benchmark requests, in the order they are cycled.
var Workload = []Call{
	{Method: "add", Params: "[1,2]", Result: "3"},
	{Method: "addInt", Params: "[1,7]", Result: "8"},
	{Method: "NullableFloatToNullableFloat", Params: "[1.23]", Result: "1.23"},
	{Method: "Test2", Params: "[3.456]", Result: "3.456"},
	{Method: "StringMe", Params: `["Foo"]`, Result: `"Foo"`},
}

// BatchSize is the number of calls in the batch benchmark.
const BatchSize = 100

// Request returns the request document for c with the given id, with the
// method name passed through rename (nil keeps it).
func Request(c Call, id int, rename func(string) string) []byte {
	name := c.Method
	if rename != nil {
		name = rename(name)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s,"id":%d}`, name, c.Params, id)
}

// Requests returns the five requests, ids 1 to 5, renamed by rename.
func Requests(rename func(string) string) [][]byte {
	reqs := make([][]byte, len(Workload))
	for i, c := range Workload {
		reqs[i] = Request(c, i+1, rename)
	}
	return reqs
}

// Batch returns a batch of n requests cycling through the five, with ids
// 1 to n (unique: some servers reject a batch with repeated ids).
func Batch(n int, rename func(string) string) []byte {
	items := make([][]byte, n)
	for i := range items {
		items[i] = Request(Workload[i%len(Workload)], i+1, rename)
	}
	return append(append([]byte{'['}, bytes.Join(items, []byte{','})...), ']')
}

// Verify sends impl each of the five requests and a batch of BatchSize and
// fails unless every answer is right and the batch's come in order.
func Verify(impl Impl) error {
	call, done := impl.NewCaller()
	defer done()
	for i, req := range Requests(impl.Rename) {
		if err := checkAnswer(call(req), Workload[i], i+1); err != nil {
			return fmt.Errorf("%s: %w", impl.Name, err)
		}
	}
	var got []json.RawMessage
	if err := json.Unmarshal(call(Batch(BatchSize, impl.Rename)), &got); err != nil || len(got) != BatchSize {
		return fmt.Errorf("%s: batch: %d answers, want %d (%v)", impl.Name, len(got), BatchSize, err)
	}
	for i, raw := range got {
		if err := checkAnswer(raw, Workload[i%len(Workload)], i+1); err != nil {
			return fmt.Errorf("%s: batch item %d: %w", impl.Name, i, err)
		}
	}
	return nil
}

// checkAnswer fails unless raw is the answer to c with the given id: the
// JSON value {"jsonrpc":"2.0","result":c.Result,"id":id}, members in any
// order and numbers written any way.
func checkAnswer(raw []byte, c Call, id int) error {
	var got, want any
	if err := json.Unmarshal(fmt.Appendf(nil, `{"jsonrpc":"2.0","result":%s,"id":%d}`, c.Result, id), &want); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &got); err != nil || !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s: answer %s, want result %s and id %d", c.Method, raw, c.Result, id)
	}
	return nil
}

// Cost is what one measurement found, per JSON-RPC call: the wall time
// divided by the calls of all goroutines, and the heap bytes and allocations
// of the whole process divided by the calls.
type Cost struct {
	NsPerCall, BytesPerCall, AllocsPerCall float64
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
	var wg sync.WaitGroup
	for _, call := range callers {
		wg.Go(func() {
			var n int64
			j := 0
			for n == 0 || time.Since(start) < d {
				for range every {
					call(docs[j])
					if j++; j == len(docs) {
						j = 0
					}
				}
				n += int64(every)
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
