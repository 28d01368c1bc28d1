package caddymodule

// serve.go answers HTTP requests: the status codes of the HTTP binding, the
// body read into a pooled buffer and the answer written from another.

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

var (
	errMethodNotAllowed = errors.New("JSON-RPC over HTTP accepts POST only")
	errNotJSON          = errors.New("JSON-RPC over HTTP needs Content-Type: application/json")
)

// contentTypeJSON is the Content-Type of every answer. Shared, so setting it
// costs no allocation; http.Header's methods replace slices, never edit them.
var contentTypeJSON = []string{"application/json"}

// ServeHTTP answers a JSON-RPC request. It never calls next: the endpoint
// is the end of its route.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	if h.ws != nil && isUpgrade(r) {
		return h.ws.serve(w, r, h.server)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return caddyhttp.Error(http.StatusMethodNotAllowed, errMethodNotAllowed)
	}
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		return caddyhttp.Error(http.StatusUnsupportedMediaType, errNotJSON)
	}

	c := &call{info: rpccore.RequestInfo{Transport: "http", RemoteAddr: r.RemoteAddr, Header: r.Header}}
	ctx := rpccore.WithRequestInfo(r.Context(), &c.info)
	resp := getBuffer()
	defer putBuffer(resp)
	if s := scannedFrom(r); s != nil {
		// A jsonrpc_method matcher read and scanned the body already.
		defer s.release(r)
		if int64(len(s.doc.Bytes())) > h.maxBody {
			return errTooLarge(h.maxBody)
		}
		*resp = h.server.ProcessDocument(ctx, s.doc, *resp, &c.sum)
	} else {
		req := getBuffer()
		defer putBuffer(req)
		if err := readBody(r.Body, r.ContentLength, h.maxBody, req); err != nil {
			return err
		}
		*resp = h.server.ProcessSummary(ctx, *req, *resp, &c.sum)
	}
	c.keepID()
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		repl.Map(c.placeholder)
	}
	h.metrics.observeDocument(&c.sum)

	if len(*resp) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	header := w.Header()
	header["Content-Type"] = contentTypeJSON
	c.contentLength[0] = strconv.Itoa(len(*resp))
	header["Content-Length"] = c.contentLength[:]
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(*resp)
	return err
}

// isJSONContentType reports whether a Content-Type header declares JSON:
// application/json, application/json-rpc or application/jsonrequest (the
// three go-ethereum accepts), in any case, with any parameters
// (charset=utf-8 and the like).
func isJSONContentType(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.TrimSpace(ct)
	return strings.EqualFold(ct, "application/json") || strings.EqualFold(ct, "application/json-rpc") ||
		strings.EqualFold(ct, "application/jsonrequest")
}

// Interface guards
var _ caddyhttp.MiddlewareHandler = (*Handler)(nil)
