package moduletest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// Request is a JSON POST of body to /rpc with the request context Caddy
// gives handlers and matchers (a replacer and the vars).
func Request(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	ctx := context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
	ctx = context.WithValue(ctx, caddyhttp.VarsCtxKey, map[string]any{})
	return r.WithContext(ctx)
}
