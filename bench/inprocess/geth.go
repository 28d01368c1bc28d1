package inprocess

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/rpc"
)

// gethNamespace is the namespace the geth service is registered under.
const gethNamespace = "bench"

// gethService holds the five benchmark methods as go-ethereum expects them:
// exported methods of a registered value.
type gethService struct{}

func (gethService) Add(a, b float64) float64                         { return a + b }
func (gethService) AddInt(a, b int) int                              { return a + b }
func (gethService) NullableFloatToNullableFloat(x *float32) *float32 { return x }
func (gethService) Test2(x float64) float64                          { return x }
func (gethService) StringMe(s string) string                         { return s }

// Sleep waits ms milliseconds on a timer and returns ms, as the demo's
// sleep does (the stream_blocking set calls it over IPC).
func (gethService) Sleep(ctx context.Context, ms int) (int, error) {
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
		return ms, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// GethRename maps a workload method name to the name go-ethereum serves it
// under: go-ethereum requires "namespace_method" names and lowers the first
// letter of each Go method name, so "add" is "bench_add".
func GethRename(name string) string {
	r, n := utf8.DecodeRuneInString(name)
	return gethNamespace + "_" + string(unicode.ToLower(r)) + name[n:]
}

// Geth is go-ethereum's rpc.Server, called through its ServeHTTP with an
// in-memory POST: a *http.Request and an httptest.ResponseRecorder per
// caller, reused (the recorder takes the header once and has its body reset
// per call).
func Geth() Impl {
	s := NewGethServer()
	return Impl{
		Name:   "geth",
		Rename: GethRename,
		NewCaller: func() (Caller, func()) {
			var body bytes.Reader
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/rpc", io.NopCloser(&body))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			return func(doc []byte) []byte {
				body.Reset(doc)
				req.ContentLength = int64(len(doc))
				w.Body.Reset()
				s.ServeHTTP(w, req)
				return w.Body.Bytes()
			}, func() {}
		},
	}
}

// NewGethServer returns a go-ethereum rpc.Server serving the five methods
// and bench_sleep under the namespace "bench" (see GethRename).
func NewGethServer() *rpc.Server {
	s := rpc.NewServer()
	if err := s.RegisterName(gethNamespace, gethService{}); err != nil {
		panic(err)
	}
	return s
}
