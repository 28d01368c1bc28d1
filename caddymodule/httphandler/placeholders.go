package httphandler

// placeholders.go exposes what a request document held as placeholders on
// the request's replacer, for Caddy's log_append, headers and other handlers.

import (
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Placeholders set for every request the handler processes.
const (
	// PlaceholderMethod is the method of the document's first request ("" when it has none).
	PlaceholderMethod = "http.jsonrpc.method"
	// PlaceholderID is the id of the document's first request as JSON text
	// (1, "abc", null), or "" when it has none (a notification).
	PlaceholderID = "http.jsonrpc.id"
	// PlaceholderBatchSize is the number of items of a batch, 0 for a single request.
	PlaceholderBatchSize = "http.jsonrpc.batch_size"
	// PlaceholderErrorCode is the code of the first error answered, 0 when none.
	PlaceholderErrorCode = "http.jsonrpc.error_code"
)

const placeholderPrefix = "http.jsonrpc."

// call is what the handler knows about one HTTP request: the request info
// its methods see and the summary of its document. One allocation holds
// both, short ids (copied inline) and the Content-Length header's value.
type call struct {
	info          rpccore.RequestInfo
	sum           rpccore.Summary
	idBuf         [24]byte
	contentLength [1]string // the answer's Content-Length header value
}

// keepID copies the summary's id out of the request buffer, which goes
// back to the pool.
func (c *call) keepID() {
	id := c.sum.ID
	if id == nil {
		return
	}
	if len(id) <= len(c.idBuf) {
		c.sum.ID = c.idBuf[:copy(c.idBuf[:], id)]
		return
	}
	c.sum.ID = append([]byte(nil), id...)
}

// placeholder is a caddy.ReplacerFunc serving the http.jsonrpc.* placeholders.
func (c *call) placeholder(key string) (any, bool) {
	if !strings.HasPrefix(key, placeholderPrefix) {
		return nil, false
	}
	switch key {
	case PlaceholderMethod:
		return c.sum.Method, true
	case PlaceholderID:
		return string(c.sum.ID), true
	case PlaceholderBatchSize:
		return c.sum.BatchSize, true
	case PlaceholderErrorCode:
		return c.sum.ErrorCode, true
	}
	return nil, false
}
