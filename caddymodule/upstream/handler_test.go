package upstream

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/httphandler"
)

func TestMountedBesideALocalServiceInTheHandler(t *testing.T) {
	srv := startServer(t, "up")
	var h httphandler.Handler
	config := `{"services":[{"service":"demo"},{"service":"upstream","to":["` + srv.URL + `"],` +
		`"methods":["whoami","subtract"],"health_interval":-1}]}`
	if err := json.Unmarshal([]byte(config), &h); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel() // cleans up the services
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	body := `[{"jsonrpc":"2.0","method":"whoami","id":1},{"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":2}]`
	req := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	if err := h.ServeHTTP(rec, req, next); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rec.Body)
	want := `[{"jsonrpc":"2.0","result":"up","id":1},{"jsonrpc":"2.0","result":2,"id":2}]`
	if string(got) != want {
		t.Errorf("got %s, want %s (subtract is the demo's, local; whoami the upstream's)", got, want)
	}
	if srv.calls.Load() != 1 {
		t.Errorf("the upstream got %d calls, want 1", srv.calls.Load())
	}
}
