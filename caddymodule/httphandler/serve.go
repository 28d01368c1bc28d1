package httphandler

// serve.go answers HTTP requests: the status codes of the HTTP binding, the
// body read into a pooled buffer and the answer written from another.

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/body"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
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
		return h.ws.serve(w, r, h.ep)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return caddyhttp.Error(http.StatusMethodNotAllowed, errMethodNotAllowed)
	}
	if !body.IsJSONContentType(r.Header.Get("Content-Type")) {
		return caddyhttp.Error(http.StatusUnsupportedMediaType, errNotJSON)
	}

	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	c, ctx, caller := h.newCall(r, repl)
	resp := body.Get()
	defer body.Put(resp)
	if s := body.ScannedFrom(r); s != nil {
		// A jsonrpc_method matcher read and scanned the body already.
		defer s.Release(r)
		if int64(len(s.Doc.Bytes())) > h.ep.MaxBody {
			return body.ErrTooLarge(h.ep.MaxBody)
		}
		*resp = h.ep.Server.ProcessDocument(ctx, s.Doc, *resp, &c.sum)
	} else {
		req := body.Get()
		defer body.Put(req)
		if err := body.Read(r.Body, r.ContentLength, h.ep.MaxBody, req); err != nil {
			return err
		}
		*resp = h.ep.Server.ProcessSummary(ctx, *req, *resp, &c.sum)
	}
	c.keepID()
	if repl != nil {
		repl.Map(c.placeholder)
	}
	h.ep.Metrics.ObserveDocument(&c.sum)

	status := http.StatusOK
	if caller != nil {
		caller.Release()
		if wait, ok := caller.TooMany(c.sum.BatchSize); ok {
			status = http.StatusTooManyRequests
			w.Header().Set("Retry-After", strconv.FormatInt(wait, 10))
		}
	}
	if len(*resp) == 0 {
		if status == http.StatusOK {
			status = http.StatusNoContent
		}
		w.WriteHeader(status)
		return nil
	}
	header := w.Header()
	header["Content-Type"] = contentTypeJSON
	c.contentLength[0] = strconv.Itoa(len(*resp))
	header["Content-Length"] = c.contentLength[:]
	w.WriteHeader(status)
	_, err := w.Write(*resp)
	return err
}

// policedCall is a call to an endpoint with a call gate, in one
// allocation with its caller and the context that carries it.
type policedCall struct {
	call
	caller policy.Caller
	ctx    policy.CallerContext
}

// newCall returns the state of one request and the context its calls
// run with. With a call gate, the caller is bound (its keys resolved from
// repl once) and returned: release it once the calls are done.
func (h *Handler) newCall(r *http.Request, repl *caddy.Replacer) (*call, context.Context, *policy.Caller) {
	info := rpccore.RequestInfo{Transport: "http", RemoteAddr: r.RemoteAddr, Header: r.Header}
	if h.ep.Policy == nil {
		c := &call{info: info}
		return c, rpccore.WithRequestInfo(r.Context(), &c.info), nil
	}
	pc := &policedCall{call: call{info: info}}
	h.ep.Policy.Bind(&pc.caller, repl, policy.MonoNow(), true)
	// Outermost, so that the gate finds the caller first.
	pc.ctx = policy.CallerContext{Context: rpccore.WithRequestInfo(r.Context(), &pc.info), Caller: &pc.caller}
	return &pc.call, &pc.ctx, &pc.caller
}

// Interface guards
var _ caddyhttp.MiddlewareHandler = (*Handler)(nil)
