package httphandler

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
)

func TestRateLimitFromJSON(t *testing.T) {
	var h Handler
	if err := json.Unmarshal([]byte(`{
		"services": [{"service": "handler_test"}],
		"rate_limit": {"zones": {"json_test": {
			"key": "{http.request.header.X-Api-Key}", "events": 2, "window": "1m",
			"methods": ["echo"], "costs": [{"method": "echo", "cost": 2}], "max_keys": 10
		}}}
	}`), &h); err != nil {
		t.Fatal(err)
	}
	mustProvision(t, &h)
	if z := h.RateLimit.Zones["json_test"]; z == nil || z.Window != caddy.Duration(time.Minute) || len(z.Costs) != 1 || z.MaxKeys != 10 {
		t.Fatalf("zone %+v", z)
	}
	rec := postFrom(t, &h, "192.0.2.1:1", map[string]string{"X-Api-Key": "a"}, nil, batchOf(2, "echo"))
	if strings.Count(rec.Body.String(), "-32005") != 1 {
		t.Fatalf("two calls of cost 2 against 2 events: %s", rec.Body)
	}
	bad := Handler{RateLimit: &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{"z": {Events: 1}}}}
	if err := provision(t, &bad); err == nil || !strings.Contains(err.Error(), "rate_limit zone z: window: required") {
		t.Fatalf("provisioning a zone without a window: %v", err)
	}
}
