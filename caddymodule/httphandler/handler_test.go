package httphandler

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// services returns the services field for the named services.
var services = moduletest.Services

// waited receives the error of the context of each wait call once it ends.
var waited = moduletest.Waited

// provision provisions h in a fresh Caddy context, cancelled at the end of
// the test.
func provision(t *testing.T, h *Handler) error {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	err := h.Provision(ctx)
	t.Cleanup(func() { _ = h.Cleanup() }) // as Caddy cleans up a configuration's handlers
	return err
}

// mustProvision provisions h and fails the test on error.
func mustProvision(t *testing.T, h *Handler) *Handler {
	t.Helper()
	if err := provision(t, h); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	h.logger = zaptest.NewLogger(t)
	return h
}

func TestProvisionMountsServices(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	got := h.ep.Server.Methods()
	for _, want := range []string{"echo", "boom", "whoami", "wait", "big"} {
		if !slices.Contains(got, want) {
			t.Errorf("method %q not registered; have %v", want, got)
		}
	}
	if h.ep.MaxBody != rpccore.DefaultMaxRequestBytes {
		t.Errorf("default max body %d, want %d", h.ep.MaxBody, rpccore.DefaultMaxRequestBytes)
	}
}

func TestProvisionErrors(t *testing.T) {
	tests := []struct {
		name string
		h    Handler
		want string
	}{
		{"same method in two services", Handler{ServicesRaw: services("handler_test", "echo_test")},
			`method "echo" is registered twice: by service handler_test and by service echo_test`},
		{"service mounted twice", Handler{ServicesRaw: services("echo_test", "echo_test")},
			`method "echo" is registered twice: service echo_test is mounted twice`},
		{"duplicate hidden by the filter", Handler{ServicesRaw: services("handler_test", "echo_test"),
			Methods: &policy.MethodFilter{Deny: []string{"echo"}}}, `method "echo" is registered twice`},
		{"service fails", Handler{ServicesRaw: services("failing_test")}, "service failing_test: "},
		{"not a service", Handler{ServicesRaw: services("not_a_service_test")},
			"module jsonrpc.services.not_a_service_test is not a jsonrpc service"},
		{"unknown service", Handler{ServicesRaw: services("nosuch")}, "loading services"},
		{"negative max_request_body", Handler{MaxRequestBody: -1}, "max_request_body: must not be negative"},
		{"negative max_batch", Handler{MaxBatch: -2}, "max_batch: must not be negative, got -2"},
		{"negative max_response_body", Handler{MaxResponseBody: -1}, "max_response_body: must not be negative"},
		{"negative max_depth", Handler{MaxDepth: -1}, "max_depth: must not be negative"},
		{"negative concurrency", Handler{Concurrency: -1}, "concurrency: must not be negative"},
		{"bad allow pattern", Handler{Methods: &policy.MethodFilter{Allow: []string{"[z-"}}}, `methods allow: bad pattern "[z-"`},
		{"empty deny pattern", Handler{Methods: &policy.MethodFilter{Deny: []string{""}}}, "methods deny: empty pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := provision(t, &tt.h)
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

func TestProvisionTwiceSharesMetrics(t *testing.T) {
	// Two handlers in one config register the same collectors: no error.
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	for range 2 {
		h := &Handler{ServicesRaw: services("handler_test")}
		if err := h.Provision(ctx); err != nil {
			t.Fatalf("Provision: %v", err)
		}
	}
}

func TestPanicIsLoggedWithMethod(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	core, logs := observer.New(zapcore.DebugLevel)
	h.logger = zap.New(core)

	rec := post(t, h, `{"jsonrpc":"2.0","method":"boom","id":7}`)
	if want := `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":7}`; rec.Body.String() != want {
		t.Errorf("answer %s, want %s", rec.Body, want)
	}
	entries := logs.FilterMessage("method panicked").All()
	if len(entries) != 1 {
		t.Fatalf("%d panic log entries, want 1: %v", len(entries), logs.All())
	}
	e := entries[0]
	fields := e.ContextMap()
	if e.Level != zapcore.ErrorLevel || fields["method"] != "boom" || fields["panic"] != "kaboom" {
		t.Errorf("log entry %v %v", e.Level, fields)
	}
	if s, _ := fields["stack"].(string); !strings.Contains(s, "goroutine") {
		t.Errorf("no stack in the log entry: %q", s)
	}
	// The server lives on.
	if rec := post(t, h, `{"jsonrpc":"2.0","method":"echo","params":["ok"],"id":8}`); rec.Code != 200 {
		t.Errorf("after the panic: status %d", rec.Code)
	}
}

func TestLimitsReachTheProcessor(t *testing.T) {
	h := mustProvision(t, &Handler{
		ServicesRaw:     services("handler_test"),
		MaxBatch:        2,
		MaxDepth:        3,
		MaxResponseBody: 100,
	})
	tests := []struct {
		name, req, want string
	}{
		{"batch within the limit", `[{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1},` +
			`{"jsonrpc":"2.0","method":"echo","params":["b"],"id":2}]`,
			`[{"jsonrpc":"2.0","result":"a","id":1},{"jsonrpc":"2.0","result":"b","id":2}]`},
		{"batch over the limit", `[1,2,3]`, `"code":-32600`},
		{"too deep", `{"jsonrpc":"2.0","method":"echo","params":[[["x"]]],"id":1}`, `"code":-32600`},
		{"response too large", `{"jsonrpc":"2.0","method":"big","params":[200],"id":1}`, `"code":-32003`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, h, tt.req)
			if !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("answer %s does not contain %s", rec.Body, tt.want)
			}
		})
	}
}

func TestMethodFilter(t *testing.T) {
	h := mustProvision(t, &Handler{
		ServicesRaw: services("handler_test"),
		Methods:     &policy.MethodFilter{Allow: []string{"ec*", "who*", "big"}, Deny: []string{"big"}},
	})
	for req, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1}`: `"result":"x"`,
		`{"jsonrpc":"2.0","method":"whoami","id":1}`:              `"result":["http"`,
		`{"jsonrpc":"2.0","method":"big","params":[1],"id":1}`:    `"code":-32601`,
		`{"jsonrpc":"2.0","method":"boom","id":1}`:                `"code":-32601`,
	} {
		if rec := post(t, h, req); !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: answer %s does not contain %s", req, rec.Body, want)
		}
	}
}
