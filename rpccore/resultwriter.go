package rpccore

// resultwriter.go is how Raw methods write their result.

import (
	"strconv"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// ResultWriter appends a Raw method's result to the response being built.
// Each write replaces the previous one; a method that writes nothing
// answers null. It is valid only during the call.
type ResultWriter struct {
	buf   []byte
	start int
}

var resultWriterPool = sync.Pool{New: func() any { return new(ResultWriter) }}

// reset drops anything written so far.
func (w *ResultWriter) reset() { w.buf = w.buf[:w.start] }

// Raw writes v, which must be one valid JSON value, as the result.
func (w *ResultWriter) Raw(v []byte) error {
	if !Valid(v) {
		return errInvalidRaw
	}
	w.reset()
	w.buf = append(w.buf, v...)
	return nil
}

// JSON writes v encoded with the encoder this package picks for its type.
func (w *ResultWriter) JSON(v any) error {
	w.reset()
	var err error
	w.buf, err = encodeWithLibrary(w.buf, v)
	if err != nil {
		w.reset()
	}
	return err
}

// String writes s as a JSON string.
func (w *ResultWriter) String(s string) {
	w.reset()
	w.buf = jsontext.AppendQuote(w.buf, s)
}

// Float64 writes f as a JSON number; NaN and infinities are an error.
func (w *ResultWriter) Float64(f float64) error {
	w.reset()
	var err error
	w.buf, err = appendFloat(w.buf, f, 64)
	return err
}

// Int64 writes n as a JSON number.
func (w *ResultWriter) Int64(n int64) {
	w.reset()
	w.buf = strconv.AppendInt(w.buf, n, 10)
}

// Bool writes b.
func (w *ResultWriter) Bool(b bool) {
	w.reset()
	w.buf = strconv.AppendBool(w.buf, b)
}

// Null writes null.
func (w *ResultWriter) Null() {
	w.reset()
	w.buf = append(w.buf, "null"...)
}
