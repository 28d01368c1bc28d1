// Package body recycles the buffers that hold request bodies and response
// documents, reads a body into one without going past the limit, and tells
// a JSON Content-Type: what the jsonrpc handler and the jsonrpc_method
// matcher read alike.
package body

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

const (
	// initialBufferSize is the capacity of a new buffer: room for a few
	// small calls or a short batch.
	initialBufferSize = 4 << 10
	// maxPooledBufferSize is the largest buffer put back in the pool;
	// larger ones, grown for a big batch, are left to the collector so
	// that one big request does not pin memory for good.
	maxPooledBufferSize = 64 << 10
)

var bufferPool = sync.Pool{New: func() any {
	b := make([]byte, 0, initialBufferSize)
	return &b
}}

// Get returns an empty buffer from the pool.
func Get() *[]byte {
	b := bufferPool.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// Put returns b to the pool unless it has grown too large.
func Put(b *[]byte) {
	if cap(*b) > maxPooledBufferSize {
		return
	}
	bufferPool.Put(b)
}

// Read reads body into *buf, failing with a 413 as soon as it holds
// more than limit bytes: it never reads more than limit+1 bytes. length is
// the declared Content-Length (-1 when unknown); a declared length over the
// limit fails before anything is read.
func Read(body io.Reader, length, limit int64, buf *[]byte) error {
	if length > limit {
		return ErrTooLarge(limit)
	}
	b := (*buf)[:0]
	if length >= 0 && int64(cap(b)) <= length {
		b = grow(b, int(length)+1) // +1: room to see EOF without growing
	}
	// len(b) <= limit holds at the top of the loop, so the slice read into
	// is never empty.
	for {
		end := min(int64(cap(b)), limit+1)
		if int64(len(b)) == end {
			b = grow(b, int(min(int64(max(2*cap(b), 512)), limit+1)))
			end = min(int64(cap(b)), limit+1)
		}
		n, err := body.Read(b[len(b):end])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			*buf = b
			return ErrTooLarge(limit)
		}
		if err == io.EOF {
			*buf = b
			return nil
		}
		if err != nil {
			*buf = b
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				return caddyhttp.Error(http.StatusRequestEntityTooLarge, err)
			}
			return caddyhttp.Error(http.StatusBadRequest, err)
		}
	}
}

// grow returns b with a capacity of at least n, its contents kept.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	nb := make([]byte, len(b), n)
	copy(nb, b)
	return nb
}

// ErrTooLarge is the error for a body over the limit.
func ErrTooLarge(limit int64) error {
	return caddyhttp.Error(http.StatusRequestEntityTooLarge,
		errors.New("request body exceeds max_request_body of "+strconv.FormatInt(limit, 10)+" bytes"))
}

// IsJSONContentType reports whether a Content-Type header declares JSON:
// application/json, application/json-rpc or application/jsonrequest (the
// three go-ethereum accepts), in any case, with any parameters
// (charset=utf-8 and the like).
func IsJSONContentType(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.TrimSpace(ct)
	return strings.EqualFold(ct, "application/json") || strings.EqualFold(ct, "application/json-rpc") ||
		strings.EqualFold(ct, "application/jsonrequest")
}
