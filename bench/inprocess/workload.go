package inprocess

import (
	"bytes"
	"fmt"
)

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
