package httphandler

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/methodmatcher"
)

// failingBody fails every read: a handler that reads it again fails.
type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, errors.New("the body was read a second time") }
func (failingBody) Close() error             { return nil }

func TestHandlerAnswersTheDocumentTheMatcherScanned(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), MaxRequestBody: 1 << 20})
	m := &methodmatcher.MatchMethod{Methods: []string{"*"}}
	if err := m.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	r := moduletest.Request(`[{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}]`)
	if !m.Match(r) || !m.Match(r) { // a second matcher reuses the scan
		t.Fatal("no match")
	}
	r.Body = failingBody{}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, r, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.Body.String(); got != `[{"jsonrpc":"2.0","result":"a","id":1}]` {
		t.Fatalf("answered %s", got)
	}
	small := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), MaxRequestBody: 10})
	r = moduletest.Request(`{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	m.Match(r)
	var he caddyhttp.HandlerError
	if err := small.ServeHTTP(httptest.NewRecorder(), r, nil); !errors.As(err, &he) || he.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a scanned body over the handler's limit: %v, want 413", err)
	}
}
