package upstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/httphandler"
)

func TestModuleIsRegistered(t *testing.T) {
	info, err := caddy.GetModule("jsonrpc.services.upstream")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.New().(*Upstream); !ok {
		t.Errorf("New returns %T", info.New())
	}
}

// adapt parses a jsonrpc directive and returns the handler's services.
func adapt(t *testing.T, input string) (string, error) {
	t.Helper()
	var h httphandler.Handler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err != nil {
		return "", err
	}
	out, err := json.Marshal(h.ServicesRaw)
	return string(out), err
}

func TestCaddyfile(t *testing.T) {
	tests := []struct{ name, input, want string }{
		{"URLs after the name", `jsonrpc {
			service upstream https://a/rpc wss://b/rpc
		}`, `[{"service":"upstream","to":["https://a/rpc","wss://b/rpc"]}]`},
		{"every option", `jsonrpc {
			service demo
			service upstream {
				to https://a/rpc
				to https://b/rpc
				methods eth_* net_version
				strip_prefix chain_
				idempotent eth_get* eth_call
				name chain
				select round_robin
				timeout 10s
				max_response 10MiB
				max_batch 50
				health_interval 5s
				health_method web3_clientVersion
				fail_duration 30s
				header x-api-key k1
				header X-Api-Key k2
				tls_ca /etc/ca.pem
				tls_server_name rpc.internal
				tls_insecure_skip_verify
			}
		}`, `[{"service":"demo"},{"fail_duration":30000000000,"header":{"X-Api-Key":["k1","k2"]},` +
			`"health_interval":5000000000,"health_method":"web3_clientVersion","idempotent":["eth_get*","eth_call"],` +
			`"max_batch":50,"max_response":10485760,"methods":["eth_*","net_version"],"name":"chain","select":"round_robin",` +
			`"service":"upstream","strip_prefix":"chain_","timeout":10000000000,"tls_ca":["/etc/ca.pem"],"tls_insecure_skip_verify":true,` +
			`"tls_server_name":"rpc.internal","to":["https://a/rpc","https://b/rpc"]}]`},
		{"health checks off", `jsonrpc {
			service upstream http://a {
				health_interval off
			}
		}`, `[{"health_interval":-1,"service":"upstream","to":["http://a"]}]`},
	}
	for _, tt := range tests {
		got, err := adapt(t, tt.input)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestCaddyfileErrors(t *testing.T) {
	tests := []struct{ name, block, want string }{
		{"unknown option", `foo 1`, `unrecognized upstream option "foo"`},
		{"to without URLs", `to`, `upstream to: want at least one URL`},
		{"bad pattern", `methods eth_[`, `upstream methods: bad pattern "eth_["`},
		{"twice", "timeout 1s\ntimeout 2s", `upstream timeout: specified twice`},
		{"bad duration", `timeout soon`, `upstream timeout: invalid duration "soon"`},
		{"zero duration", `fail_duration 0s`, `upstream fail_duration: must be greater than zero`},
		{"health_interval bad", `health_interval never`, `upstream health_interval: invalid duration "never"`},
		{"bad size", `max_response lots`, `upstream max_response: invalid size "lots"`},
		{"bad count", `max_batch 0`, `upstream max_batch: want a number greater than zero`},
		{"bad select", `select random`, `upstream select: "random" is not first or round_robin`},
		{"header without value", `header X-A`, `upstream header: want a field name and a value`},
		{"flag with argument", `tls_insecure_skip_verify yes`, `takes no arguments`},
	}
	for _, tt := range tests {
		_, err := adapt(t, "jsonrpc {\nservice upstream http://a {\n"+tt.block+"\n}\n}")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestValidateNamesTheOption(t *testing.T) {
	tests := []struct {
		u    *Upstream
		want string
	}{
		{&Upstream{}, "upstream to: want at least one URL"},
		{&Upstream{To: []string{"ftp://a"}}, `upstream to: "ftp://a": the scheme must be http, https, ws or wss`},
		{&Upstream{To: []string{"http://"}}, `upstream to: "http://": no host`},
		{&Upstream{To: []string{"https://user:pw@x:1:2"}}, `upstream to: a URL does not parse: invalid port`},
		{&Upstream{To: []string{"http://a"}, Methods: []string{""}}, `upstream methods: bad pattern ""`},
		{&Upstream{To: []string{"http://a"}, Idempotent: []string{"["}}, `upstream idempotent: bad pattern "["`},
		{&Upstream{To: []string{"http://a"}, Select: "x"}, `upstream select: "x" is not first or round_robin`},
		{&Upstream{To: []string{"http://a"}, Timeout: -1}, `upstream timeout: must not be negative`},
		{&Upstream{To: []string{"http://a"}, MaxResponse: -1}, `upstream max_response: must not be negative`},
		{&Upstream{To: []string{"http://a"}, MaxBatch: -1}, `upstream max_batch: must not be negative`},
		{&Upstream{To: []string{"http://a"}, FailDuration: -1}, `upstream fail_duration: must not be negative`},
	}
	for _, tt := range tests {
		err := tt.u.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.u.To, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}

func TestProvisionReadsTheCA(t *testing.T) {
	u := &Upstream{To: []string{"https://a"}, TLSCA: []string{"/nonexistent/ca.pem"}}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	if err := u.Provision(ctx); err == nil || !strings.Contains(err.Error(), "upstream tls_ca") {
		t.Errorf("a missing CA file: %v", err)
	}
}
