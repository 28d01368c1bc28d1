//go:build js && wasm

package main

// direct.go holds the functions the WebAssembly module exports itself
// (go:wasmexport), which JavaScript calls on the instance with numbers: no
// js.Func, no event, no js.Value. Documents pass through buffers in the
// module's memory: JavaScript writes the request at the address
// requestBuffer returns, and reads the answer at answerBuffer. web/direct.js
// wraps them.

import "unsafe"

// direct is the host the exports use; main sets it.
var direct *host

// requestBuffer returns the address of a buffer of at least n bytes, where
// JavaScript writes a request document of n bytes before processBuffer.
// The address holds until the next requestBuffer.
//
//go:wasmexport requestBuffer
func requestBuffer(n int32) uint32 {
	h := direct
	if int(n) > cap(h.in) {
		h.in = make([]byte, 0, int(n))
	}
	h.in = h.in[:cap(h.in)]
	return address(h.in)
}

// processBuffer processes the n bytes written at requestBuffer's address
// and returns the answer's length (0: nothing to answer).
//
//go:wasmexport processBuffer
func processBuffer(n int32) int32 {
	h := direct
	h.in = h.in[:min(max(int(n), 0), cap(h.in))]
	h.processIn()
	return int32(len(h.out))
}

// answerBuffer returns the address of the last answer processBuffer made.
// It holds until the next processBuffer.
//
//go:wasmexport answerBuffer
func answerBuffer() uint32 {
	return address(direct.out[:cap(direct.out)])
}

// addNumbers is add with numbers in and out, called on the instance: the
// floor of a call from JavaScript into Go.
//
//go:wasmexport addNumbers
func addNumbers(a, b float64) float64 { return a + b }

// address returns where b's array lies in the module's memory.
func address(b []byte) uint32 {
	if cap(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}
