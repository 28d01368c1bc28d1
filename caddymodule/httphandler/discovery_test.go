package httphandler

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
)

// discovered calls rpc.discover on h and returns the names of the methods
// its document lists, and its info.
func discovered(t *testing.T, h *Handler) (methods []string, title, version string) {
	t.Helper()
	rec := post(t, h, `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`)
	var answer struct {
		Result struct {
			Info struct {
				Title, Version string
			} `json:"info"`
			Methods []struct {
				Name string `json:"name"`
			} `json:"methods"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || len(answer.Result.Methods) == 0 {
		t.Fatalf("rpc.discover: %s (%v)", rec.Body, err)
	}
	for _, m := range answer.Result.Methods {
		methods = append(methods, m.Name)
	}
	return methods, answer.Result.Info.Title, answer.Result.Info.Version
}

func TestDiscoveryIsOnByDefault(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	methods, title, version := discovered(t, h)
	if want := []string{"big", "boom", "echo", "rpc.discover", "wait", "whoami"}; !slices.Equal(methods, want) {
		t.Errorf("methods %v, want %v", methods, want)
	}
	if title != "caddy-jsonrpc" || version != "0.0.0" {
		t.Errorf("info: title %q, version %q", title, version)
	}
}

func TestDiscoveryLeavesOutHiddenMethods(t *testing.T) {
	h := mustProvision(t, &Handler{
		ServicesRaw: services("handler_test"),
		Methods:     &policy.MethodFilter{Allow: []string{"ec*", "big"}, Deny: []string{"big"}},
		OpenRPC:     &caddymodule.OpenRPCConfig{Title: "Echo", Version: "2"},
	})
	methods, title, version := discovered(t, h)
	// The filter hides big and the others, not rpc.discover.
	if want := []string{"echo", "rpc.discover"}; !slices.Equal(methods, want) {
		t.Errorf("methods %v, want %v", methods, want)
	}
	if title != "Echo" || version != "2" {
		t.Errorf("info: title %q, version %q", title, version)
	}
}

func TestDiscoveryOff(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), OpenRPC: &caddymodule.OpenRPCConfig{Disabled: true}})
	rec := post(t, h, `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`)
	if !strings.Contains(rec.Body.String(), `"code":-32601`) {
		t.Errorf("rpc.discover with openrpc off: %s", rec.Body)
	}
}
