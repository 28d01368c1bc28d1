//go:build js && wasm

package main

// loop.go holds the benchmark that runs inside Go: the server with no
// JavaScript in between, the ceiling of every path through interop.

import (
	"bytes"
	"strings"
	"syscall/js"
	"time"
)

// The documents loop processes: add(1, 2), alone or as a batch of 100.
var (
	addRequest = []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	addAnswer  = []byte(`{"jsonrpc":"2.0","result":3,"id":1}`)

	addBatch       = []byte("[" + strings.Repeat(string(addRequest)+",", 99) + string(addRequest) + "]")
	addBatchAnswer = []byte("[" + strings.Repeat(string(addAnswer)+",", 99) + string(addAnswer) + "]")
)

// loop processes n documents inside Go and returns the nanoseconds they
// took: kind "single" runs add(1, 2), "batch" a batch of 100 of them. It
// returns -1 for another kind, or when an answer is not the expected one.
func (h *host) loop(_ js.Value, args []js.Value) any {
	req, want := addRequest, addAnswer
	switch arg(args, 0).String() {
	case "single":
	case "batch":
		req, want = addBatch, addBatchAnswer
	default:
		return -1
	}
	n := 1
	if v := arg(args, 1); v.Type() == js.TypeNumber {
		n = v.Int()
	}
	start := time.Now()
	for range n {
		h.out = h.s.Process(h.ctx, req, h.out[:0])
	}
	elapsed := time.Since(start)
	if !bytes.Equal(h.out, want) {
		return -1
	}
	return float64(elapsed.Nanoseconds())
}
