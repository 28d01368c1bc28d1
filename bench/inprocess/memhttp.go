package inprocess

import (
	"bytes"
	"context"
	"net/http"
)

// memExchange is one reusable POST to an http.Handler.
type memExchange struct {
	h    http.Handler
	req  *http.Request
	body bytes.Reader
	w    memWriter
}

func newMemExchange(h http.Handler) *memExchange {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://127.0.0.1/rpc", nil)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:40000"
	x := &memExchange{h: h, req: req}
	x.w.header = http.Header{}
	return x
}

// call POSTs body and returns the response body, valid until the next call.
func (x *memExchange) call(body []byte) []byte {
	x.body.Reset(body)
	x.req.Body = readCloser{&x.body}
	x.req.ContentLength = int64(len(body))
	x.w.status = 0
	x.w.body = x.w.body[:0]
	x.h.ServeHTTP(&x.w, x.req)
	return x.w.body
}

// readCloser adds a no-op Close to a bytes.Reader.
type readCloser struct{ *bytes.Reader }

// Close does nothing.
func (readCloser) Close() error { return nil }

// memWriter is an http.ResponseWriter that keeps the body in memory.
type memWriter struct {
	header http.Header
	status int
	body   []byte
}

// Header returns the response header.
func (w *memWriter) Header() http.Header { return w.header }

// WriteHeader records the status code.
func (w *memWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

// Write appends p to the body.
func (w *memWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

// Flush does nothing: the body is already where the caller reads it.
func (w *memWriter) Flush() {}
