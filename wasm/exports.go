//go:build js && wasm

package main

// exports.go holds what JavaScript sees: the global object rpccore and its
// functions, one per way into the server.

import (
	"math"
	"runtime"
	"syscall/js"
)

// export sets the global object rpccore, whose functions go through
// syscall/js (each call is a js.Func event):
//
//	process(doc: string): string            the string path
//	processBytes(doc: Uint8Array): Uint8Array
//	                                        the bytes path: UTF-8 in, UTF-8 out
//	batch(docs: string[]): string           the documents sent as one batch
//	add(a: number, b: number): number       the demo's add, typed: no JSON
//	loop(kind: string, n: number): number   n documents processed inside Go,
//	                                        in nanoseconds
//	go: string                              the Go version
//
// An answer of "" (or no bytes) means there is nothing to answer: the
// document held only notifications. The functions in direct.go skip
// syscall/js altogether.
func export(h *host) {
	js.Global().Set("rpccore", map[string]any{
		"process":      js.FuncOf(h.process),
		"processBytes": js.FuncOf(h.processBytes),
		"batch":        js.FuncOf(h.batch),
		"add":          js.FuncOf(add),
		"loop":         js.FuncOf(h.loop),
		"go":           runtime.Version(),
	})
}

// arg returns args[i], or undefined when the call passed fewer.
func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// process is the string path: a JavaScript string in, one out. A value that
// is not a string reads as an empty document (answered -32700).
func (h *host) process(_ js.Value, args []js.Value) any {
	h.in = h.in[:0]
	if v := arg(args, 0); v.Type() == js.TypeString {
		h.in = append(h.in, v.String()...)
	}
	h.processIn()
	return string(h.out)
}

// processBytes is the bytes path: the UTF-8 bytes of a document in a
// Uint8Array in, a new Uint8Array out. No JavaScript string is made.
func (h *host) processBytes(_ js.Value, args []js.Value) any {
	h.readBytes(arg(args, 0))
	h.processIn()
	dst := h.uint8Array.New(len(h.out))
	js.CopyBytesToJS(dst, h.out)
	return dst
}

// batch sends an array of request documents (strings) as one batch and
// returns the batch's answer: JavaScript need not build the array's text.
func (h *host) batch(_ js.Value, args []js.Value) any {
	docs := arg(args, 0)
	h.in = append(h.in[:0], '[')
	if docs.Type() == js.TypeObject {
		for i, n := 0, docs.Length(); i < n; i++ {
			if i > 0 {
				h.in = append(h.in, ',')
			}
			h.in = append(h.in, docs.Index(i).String()...)
		}
	}
	h.in = append(h.in, ']')
	h.processIn()
	return string(h.out)
}

// add is the demo's add with numbers in and out: the floor of a call from
// JavaScript into Go, with no JSON. Values that are not numbers give NaN.
func add(_ js.Value, args []js.Value) any {
	a, b := arg(args, 0), arg(args, 1)
	if a.Type() != js.TypeNumber || b.Type() != js.TypeNumber {
		return math.NaN()
	}
	return a.Float() + b.Float()
}
