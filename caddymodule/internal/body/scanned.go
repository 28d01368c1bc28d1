package body

// scanned.go hands a body that a jsonrpc_method matcher read and scanned
// to the next matcher and to the jsonrpc handler, so that neither reads or
// scans it again.

import (
	"bytes"
	"io"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// scannedVar is the request variable that holds the scanned body, for the
// next matcher and the jsonrpc handler.
const scannedVar = "jsonrpc.scanned_body"

// Scanned is a request body read and scanned by a matcher: the document
// and the pooled buffer that holds its text.
type Scanned struct {
	Doc *rpccore.Document
	buf *[]byte
}

// ScannedFrom returns what a matcher scanned of r, or nil.
func ScannedFrom(r *http.Request) *Scanned {
	s, _ := caddyhttp.GetVar(r.Context(), scannedVar).(*Scanned)
	return s
}

// Release recycles the document and its buffer, once the request is
// answered and the body read by no one else. Without a jsonrpc handler on
// the request, the collector takes them.
func (s *Scanned) Release(r *http.Request) {
	caddyhttp.SetVar(r.Context(), scannedVar, nil)
	s.Doc.Release()
	Put(s.buf)
}

// ScannedBody returns the request's body as a scanned document, reading
// and scanning it on the first call for the request and leaving r.Body
// readable from the start. It returns nil when the request is not a JSON
// POST or its body is over limit (then r.Body still yields it whole).
func ScannedBody(r *http.Request, limit int64) (*rpccore.Document, error) {
	if s := ScannedFrom(r); s != nil {
		if int64(len(s.Doc.Bytes())) > limit {
			return nil, nil
		}
		return s.Doc, nil
	}
	if r.Method != http.MethodPost || !IsJSONContentType(r.Header.Get("Content-Type")) || r.Body == nil {
		return nil, nil
	}
	if r.ContentLength > limit {
		return nil, nil
	}
	buf := Get()
	err := Read(r.Body, r.ContentLength, limit, buf)
	if int64(len(*buf)) > limit {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(*buf), r.Body), r.Body}
		return nil, nil
	}
	r.Body = readCloser{bytes.NewReader(*buf), r.Body}
	if err != nil {
		return nil, err
	}
	s := &Scanned{Doc: rpccore.ReadDocument(*buf), buf: buf}
	caddyhttp.SetVar(r.Context(), scannedVar, s)
	return s.Doc, nil
}

// readCloser reads from one reader and closes the original body.
type readCloser struct {
	io.Reader
	io.Closer
}
