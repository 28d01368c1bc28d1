//go:build js && wasm

package main

// host.go holds the host: the server, and the buffers every call from
// JavaScript reuses.

import (
	"context"
	"syscall/js"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// host answers the calls JavaScript makes. JavaScript runs one call at a
// time and each runs to its end before returning, so the buffers are reused
// without locks.
type host struct {
	s   *rpccore.Server
	ctx context.Context // carries RequestInfo{Transport: "wasm"}

	in  []byte // the request document
	out []byte // the response document

	uint8Array js.Value // the Uint8Array constructor
}

func newHost(s *rpccore.Server) *host {
	return &host{
		s:          s,
		ctx:        rpccore.WithRequestInfo(context.Background(), &rpccore.RequestInfo{Transport: "wasm"}),
		in:         make([]byte, 0, 64<<10),
		out:        make([]byte, 0, 64<<10),
		uint8Array: js.Global().Get("Uint8Array"),
	}
}

// processIn runs the document held in h.in and leaves the answer in h.out.
func (h *host) processIn() {
	h.out = h.s.Process(h.ctx, h.in, h.out[:0])
}

// readBytes copies the Uint8Array v into h.in. A value that is not a
// Uint8Array reads as an empty document, which Process answers -32700.
func (h *host) readBytes(v js.Value) {
	h.in = h.in[:0]
	if !v.InstanceOf(h.uint8Array) {
		return
	}
	// One copy when the document fits the buffer; the length is asked
	// only when it may not.
	n := js.CopyBytesToGo(h.in[:cap(h.in)], v)
	if n == cap(h.in) {
		if l := v.Length(); l > n {
			h.in = append(h.in[:n], make([]byte, l-n)...)
			n = js.CopyBytesToGo(h.in, v)
		}
	}
	h.in = h.in[:n]
}
