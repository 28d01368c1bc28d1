package rpccore

import (
	"context"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Document is a request document scanned once, so that something in front
// of a server (a request matcher, a router) can look at its calls and the
// server answer it without a second scan. The scan is the one Process
// does, with its strictness; the server's limits are checked when it
// answers.
type Document struct {
	req []byte
	d   document
}

// ReadDocument scans req. req must not change while the Document is used;
// Release gives the Document back once it is answered.
func ReadDocument(req []byte) *Document {
	doc := scannedPool.Get().(*Document)
	doc.req = req
	doc.d = document{items: doc.d.items[:0], batch: isBatch(req)}
	doc.d.invalidJSON = !parseDocument(req, &doc.d)
	return doc
}

// Release recycles the Document; it must not be used after.
func (doc *Document) Release() {
	clear(doc.d.items)
	doc.req, doc.d.items = nil, doc.d.items[:0]
	scannedPool.Put(doc)
}

var scannedPool = sync.Pool{New: func() any { return new(Document) }}

// Bytes returns the document's text.
func (doc *Document) Bytes() []byte { return doc.req }

// Valid reports whether the document is valid JSON holding a request
// object or a non-empty array of them; a batch may still hold items that
// are not valid requests (EachMethod reports them).
func (doc *Document) Valid() bool {
	d := &doc.d
	return !d.invalidJSON && !d.nonObj && (!d.batch || len(d.items) > 0)
}

// IsBatch reports whether the document is an array.
func (doc *Document) IsBatch() bool { return doc.d.batch }

// Calls returns the number of request objects: 1 for a single request, the
// items of a batch.
func (doc *Document) Calls() int {
	if doc.d.batch {
		return len(doc.d.items)
	}
	return 1
}

// EveryMethod reports whether the document is Valid, every request in it
// is a valid request object, and fn returns true for the method name of
// each, in order (it stops at the first false). The name is unescaped; it
// is only valid during the call.
func (doc *Document) EveryMethod(fn func(method []byte) bool) bool {
	if !doc.Valid() {
		return false
	}
	if !doc.d.batch {
		return methodOK(&doc.d.single, fn)
	}
	for i := range doc.d.items {
		if !methodOK(&doc.d.items[i], fn) {
			return false
		}
	}
	return true
}

// methodOK reports whether r is valid and fn accepts its method.
func methodOK(r *request, fn func([]byte) bool) bool {
	if r.invalid {
		return false
	}
	if !r.escaped {
		return fn(r.method)
	}
	var scratch [64]byte
	return fn(jsontext.AppendUnquote(scratch[:0], r.method))
}

// ProcessDocument answers doc as ProcessSummary answers its text, without
// scanning it again. sum may be nil.
func (s *Server) ProcessDocument(ctx context.Context, doc *Document, dst []byte, sum *Summary) []byte {
	req, d := doc.req, &doc.d
	if len(req) > s.cfg.maxRequestBytes {
		return s.refuseSize(req, dst, sum)
	}
	if d.batch {
		if out, refused := s.checkBatch(d, dst, sum); refused {
			return out
		}
		return s.answerBatch(ctx, d, dst, sum, nil)
	}
	if !s.checkSingle(d) {
		return s.refuseSingle(d, dst, sum)
	}
	return s.answerSummarized(ctx, d, dst, sum)
}
