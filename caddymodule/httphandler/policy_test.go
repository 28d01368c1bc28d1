package httphandler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// limitedHandler provisions a handler of the test methods with zones.
func limitedHandler(t *testing.T, zones map[string]*policy.RateLimitZone) *Handler {
	t.Helper()
	return mustProvision(t, &Handler{ServicesRaw: services("handler_test"), RateLimit: &policy.RateLimit{Zones: zones}})
}

// postFrom sends body as a JSON POST from remote, with header and the
// replacer variables vars set, as Caddy's server and authentication
// handlers would have set them.
func postFrom(t *testing.T, h *Handler, remote string, header map[string]string, vars map[string]any,
	body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(body))
	r.RemoteAddr = remote
	r.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		r.Header.Set(k, v)
	}
	repl := caddyhttp.NewTestReplacer(r)
	for k, v := range vars {
		repl.Set(k, v)
	}
	rec := httptest.NewRecorder()
	if err := h.ServeHTTP(rec, r, nil); err != nil {
		t.Fatalf("ServeHTTP: %v", err)
	}
	return rec
}

// answers decodes a batch answer.
func answers(t *testing.T, body string) []struct {
	ID     int              `json:"id"`
	Result json.RawMessage  `json:"result"`
	Error  *json.RawMessage `json:"error"`
} {
	t.Helper()
	var out []struct {
		ID     int              `json:"id"`
		Result json.RawMessage  `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	return out
}

// batchOf is a batch of n echo calls with ids 1 to n.
func batchOf(n int, method string) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":["x"],"id":%d}`, method, i+1)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

func TestRateLimitBatchOfAHundredAgainstFifty(t *testing.T) {
	h := limitedHandler(t, map[string]*policy.RateLimitZone{"batch_test": moduletest.Zone("", 50)})
	rec := postFrom(t, h, "192.0.2.1:1000", nil, nil, batchOf(100, "echo"))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200: half of the calls ran", rec.Code)
	}
	got := answers(t, rec.Body.String())
	if len(got) != 100 {
		t.Fatalf("%d answers, want 100", len(got))
	}
	for i, a := range got {
		if a.ID != i+1 {
			t.Fatalf("answer %d has id %d: not in request order", i, a.ID)
		}
		if i < 50 && a.Error != nil {
			t.Fatalf("call %d refused: %s", i+1, *a.Error)
		}
		if i >= 50 {
			var e struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    struct {
					RetryAfterMS int64  `json:"retry_after_ms"`
					Zone         string `json:"zone"`
				} `json:"data"`
			}
			if a.Error == nil || json.Unmarshal(*a.Error, &e) != nil {
				t.Fatalf("call %d ran over the limit", i+1)
			}
			// 50 an hour: one more every 72s.
			if e.Code != -32005 || e.Message != "Limit exceeded" || e.Data.Zone != "batch_test" ||
				e.Data.RetryAfterMS <= 0 || e.Data.RetryAfterMS > 72000 {
				t.Fatalf("call %d: error %s", i+1, *a.Error)
			}
		}
	}
	if rec.Header().Get("Retry-After") != "" {
		t.Error("Retry-After on a 200")
	}
}

func TestRateLimitAllRefusedIs429WithRetryAfter(t *testing.T) {
	h := limitedHandler(t, map[string]*policy.RateLimitZone{"all_test": moduletest.Zone("", 2)})
	postFrom(t, h, "192.0.2.1:1", nil, nil, batchOf(2, "echo"))
	rec := postFrom(t, h, "192.0.2.1:2", nil, nil, batchOf(3, "echo"))
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", rec.Code)
	}
	// Two an hour: the next in 30 minutes.
	if got := rec.Header().Get("Retry-After"); got != "1800" {
		t.Errorf("Retry-After %q, want 1800", got)
	}
	if n := len(answers(t, rec.Body.String())); n != 3 || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("the 429 carries %d answers (%s), want the 3 JSON-RPC errors", n, rec.Header().Get("Content-Type"))
	}

	single := postFrom(t, h, "192.0.2.1:3", nil, nil, `{"jsonrpc":"2.0","method":"echo","params":["x"],"id":7}`)
	if single.Code != http.StatusTooManyRequests || !strings.Contains(single.Body.String(), `"code":-32005`) {
		t.Errorf("a refused single call: %d %s", single.Code, single.Body)
	}
	notes := postFrom(t, h, "192.0.2.1:4", nil, nil, `[{"jsonrpc":"2.0","method":"echo","params":["x"]}]`)
	if notes.Code != http.StatusTooManyRequests || notes.Body.Len() != 0 {
		t.Errorf("refused notifications: %d %q, want 429 and no body", notes.Code, notes.Body)
	}
	mixed := postFrom(t, h, "192.0.2.1:5", nil, nil, `[{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1},`+
		`{"jsonrpc":"2.0","method":"nothere","id":2}]`)
	if mixed.Code != http.StatusOK {
		t.Errorf("a batch with a call the limit did not refuse: status %d, want 200", mixed.Code)
	}
	other := postFrom(t, h, "198.51.100.1:1", nil, nil, batchOf(2, "echo"))
	if other.Code != http.StatusOK || strings.Contains(other.Body.String(), "error") {
		t.Errorf("another client's budget is its own: %d %s", other.Code, other.Body)
	}
}

func TestRateLimitPerHeaderKey(t *testing.T) {
	h := limitedHandler(t, map[string]*policy.RateLimitZone{"header_test": moduletest.Zone("{http.request.header.X-Api-Key}", 3)})
	run := func(key string, n int) (ok, refused int) {
		for _, a := range answers(t, postFrom(t, h, "192.0.2.1:1", map[string]string{"X-Api-Key": key}, nil,
			batchOf(n, "echo")).Body.String()) {
			if a.Error == nil {
				ok++
			} else {
				refused++
			}
		}
		return ok, refused
	}
	if ok, refused := run("alpha", 5); ok != 3 || refused != 2 {
		t.Errorf("alpha: %d ran, %d refused; want 3 and 2", ok, refused)
	}
	if ok, refused := run("beta", 2); ok != 2 || refused != 0 {
		t.Errorf("beta: %d ran, %d refused; want 2 and 0", ok, refused)
	}
	if ok, _ := run("alpha", 1); ok != 0 {
		t.Error("alpha's budget came back")
	}
}

func TestRateLimitMethodsCostsAndZonesTogether(t *testing.T) {
	h := limitedHandler(t, map[string]*policy.RateLimitZone{
		// Only big counts here, 3 events a call.
		"big_test": {Events: 6, Window: caddy.Duration(time.Hour), Methods: []string{"bi?"},
			Costs: []policy.RateLimitCost{{Method: "big", Cost: 3}}},
		// Every call counts here, against one budget for everyone.
		"global_test": moduletest.Zone("everyone", 4),
	})
	call := func(method, params string) string {
		return postFrom(t, h, "192.0.2.1:1", nil, nil,
			`{"jsonrpc":"2.0","method":"`+method+`","params":`+params+`,"id":1}`).Body.String()
	}
	for i := range 2 {
		if got := call("big", "[1]"); strings.Contains(got, "error") {
			t.Fatalf("big %d: %s", i+1, got)
		}
	}
	// big_test is spent: the call it refuses must not spend global_test.
	if got := call("big", "[1]"); !strings.Contains(got, `"zone":"big_test"`) {
		t.Fatalf("third big: %s", got)
	}
	for i := range 2 {
		if got := call("echo", `["x"]`); strings.Contains(got, "error") {
			t.Fatalf("echo %d, with global_test's budget left: %s", i+1, got)
		}
	}
	if got := call("echo", `["x"]`); !strings.Contains(got, `"zone":"global_test"`) {
		t.Fatalf("global_test is spent: %s", got)
	}
}

func TestRateLimitCountsRefusalsByZone(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{ServicesRaw: services("handler_test"),
		RateLimit: &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{"metric_test": moduletest.Zone("", 1)}}}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Cleanup()
	labels := map[string]string{"zone": "metric_test"}
	before, _ := moduletest.Gather(t, ctx.GetMetricsRegistry(), "caddy_jsonrpc_rate_limited_total", labels) // counts outlive configurations
	postFrom(t, h, "192.0.2.1:1", nil, nil, `[{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1},`+
		`{"jsonrpc":"2.0","method":"echo","params":["x"],"id":2},{"jsonrpc":"2.0","method":"echo","params":["x"]}]`)
	got, _ := moduletest.Gather(t, ctx.GetMetricsRegistry(), "caddy_jsonrpc_rate_limited_total", labels)
	if got -= before; got != 2 {
		t.Errorf("rate_limited_total{zone=metric_test} = %v, want 2 (a call and a notification)", got)
	}
}

// policyWSServer serves h as Caddy would: each request with its replacer.
func policyWSServer(t *testing.T, h *Handler) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		repl := caddyhttp.NewTestReplacer(r)
		if user := r.Header.Get("X-User"); user != "" {
			repl.Set("http.auth.user.id", user)
		}
		if err := h.ServeHTTP(w, r, nil); err != nil {
			var he caddyhttp.HandlerError
			if errors.As(err, &he) {
				w.WriteHeader(he.StatusCode)
			}
		}
	}))
	t.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http") + "/rpc"
}

func TestRateLimitCountsAcrossWebSocketMessagesAndConnections(t *testing.T) {
	h := limitedHandler(t, map[string]*policy.RateLimitZone{"ws_test": moduletest.Zone("{http.request.header.X-Api-Key}", 3)})
	url := policyWSServer(t, h)
	first, _, err := dialWS(t, url, http.Header{"X-Api-Key": {"k1"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if got := roundTrip(t, first, `{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1}`); strings.Contains(got, "error") {
			t.Fatalf("message %d: %s", i+1, got)
		}
	}
	got := roundTrip(t, first, batchOf(2, "echo"))
	if n := strings.Count(got, `"code":-32005`); n != 1 {
		t.Fatalf("the third and fourth calls: %s, want one refused", got)
	}
	second, _, err := dialWS(t, url, http.Header{"X-Api-Key": {"k1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, second, `{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1}`); !strings.Contains(got, "-32005") {
		t.Fatalf("a second connection of the same key: %s", got)
	}
	other, _, err := dialWS(t, url, http.Header{"X-Api-Key": {"k2"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, other, `{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1}`); strings.Contains(got, "error") {
		t.Fatalf("another key: %s", got)
	}
}

func TestGateWithoutACallerUsesTheRulesOfNobody(t *testing.T) {
	h := identityHandler(t)
	err := h.ep.Policy.Gate(context.Background(), "big")
	if err != rpccore.ErrMethodHidden {
		t.Errorf("gate without a caller: %v, want the method hidden", err)
	}
}

// BenchmarkRateLimitGate is what the call gate costs one call in process:
// finding the caller in the context, the method's cost and one zone's
// counter (an HTTP request's caller, bound once). one_zone counts echo
// only (so the method is looked up), every_method counts every call at 1,
// uncounted calls a method no zone counts.
func BenchmarkRateLimitGate(b *testing.B) {
	for _, bm := range []struct {
		name, method string
		methods      []string
	}{
		{"one_zone", "echo", []string{"echo"}},
		{"every_method", "echo", nil},
		{"uncounted", "whoami", []string{"echo"}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			h := &Handler{ServicesRaw: services("handler_test"), RateLimit: &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{
				"bench_" + bm.name: {Events: 1 << 30, Window: caddy.Duration(time.Hour), Methods: bm.methods},
			}}}
			if err := h.Provision(ctx); err != nil {
				b.Fatal(err)
			}
			var pc policedCall
			h.ep.Policy.Bind(&pc.caller, caddy.NewReplacer(), policy.MonoNow(), true)
			defer pc.caller.Release()
			pc.ctx = policy.CallerContext{Context: rpccore.WithRequestInfo(context.Background(), &pc.info), Caller: &pc.caller}
			callCtx := context.Context(&pc.ctx)
			b.ReportAllocs()
			for b.Loop() {
				if err := h.ep.Policy.Gate(callCtx, bm.method); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestHiddenMethodsSpendNothing(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"),
		Methods: &policy.MethodFilter{Identity: &policy.MethodIdentity{Key: "{http.auth.user.id}",
			Rules: map[string]*policy.MethodRules{"alice": {Deny: []string{"big"}}}}},
		RateLimit: &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{"hidden_test": moduletest.Zone("{http.auth.user.id}", 2)}},
	})
	alice := map[string]any{"http.auth.user.id": "alice"}
	rec := postFrom(t, h, "192.0.2.1:1", nil, alice, batchOf(3, "big"))
	if n := strings.Count(rec.Body.String(), "-32601"); n != 3 || rec.Code != http.StatusOK {
		t.Fatalf("big, hidden from alice: %d %s", rec.Code, rec.Body)
	}
	rec = postFrom(t, h, "192.0.2.1:1", nil, alice, batchOf(3, "echo"))
	if n := strings.Count(rec.Body.String(), "-32005"); n != 1 {
		t.Fatalf("after hidden calls, alice's budget of 2: %s", rec.Body)
	}
}
