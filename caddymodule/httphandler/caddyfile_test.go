package httphandler

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// testService is a service with Caddyfile options, registered for these tests.
type testService struct {
	Prefix string `json:"prefix,omitempty"`
}

func (testService) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "jsonrpc.services.caddyfile_test", New: func() caddy.Module { return new(testService) }}
}

func (testService) RegisterMethods(*rpccore.Server) error { return nil }

func (s *testService) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the service's name
	for d.NextBlock(0) {
		switch d.Val() {
		case "prefix":
			if !d.AllArgs(&s.Prefix) {
				return d.ArgErr()
			}
		default:
			return d.Errf("unknown option %q", d.Val())
		}
	}
	return nil
}

// plainService is a service without Caddyfile options.
type plainService struct{}

func (plainService) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "jsonrpc.services.plain_test", New: func() caddy.Module { return new(plainService) }}
}

func (plainService) RegisterMethods(*rpccore.Server) error { return nil }

func init() {
	caddy.RegisterModule(testService{})
	caddy.RegisterModule(plainService{})
}

func TestUnmarshalCaddyfileOptions(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string // the handler as JSON
	}{
		{"empty", `jsonrpc`, `{}`},
		{"empty block", `jsonrpc {
		}`, `{}`},
		{"service", `jsonrpc {
			service plain_test
		}`, `{"services":[{"service":"plain_test"}]}`},
		{"two services in order", `jsonrpc {
			service plain_test
			service caddyfile_test
		}`, `{"services":[{"service":"plain_test"},{"service":"caddyfile_test"}]}`},
		{"service with options", `jsonrpc {
			service caddyfile_test {
				prefix v1_
			}
		}`, `{"services":[{"prefix":"v1_","service":"caddyfile_test"}]}`},
		{"max_request_body units", `jsonrpc {
			max_request_body 1MiB
		}`, `{"max_request_body":1048576}`},
		{"max_request_body SI units", `jsonrpc {
			max_request_body 2MB
		}`, `{"max_request_body":2000000}`},
		{"max_request_body bytes", `jsonrpc {
			max_request_body 512
		}`, `{"max_request_body":512}`},
		{"max_response_body", `jsonrpc {
			max_response_body 64KiB
		}`, `{"max_response_body":65536}`},
		{"max_batch", `jsonrpc {
			max_batch 100
		}`, `{"max_batch":100}`},
		{"max_depth", `jsonrpc {
			max_depth 16
		}`, `{"max_depth":16}`},
		{"concurrency", `jsonrpc {
			concurrency 4
		}`, `{"concurrency":4}`},
		{"methods", `jsonrpc {
			methods {
				allow add* sub?ract
				allow get_data
				deny addInt
			}
		}`, `{"methods":{"allow":["add*","sub?ract","get_data"],"deny":["addInt"]}}`},
		{"methods deny only", `jsonrpc {
			methods {
				deny notify_*
			}
		}`, `{"methods":{"deny":["notify_*"]}}`},
		{"websocket on with defaults", `jsonrpc {
			websocket
		}`, `{"websocket":{}}`},
		{"websocket off", `jsonrpc {
			websocket off
		}`, `{"websocket":{"disabled":true}}`},
		{"websocket block", `jsonrpc {
			websocket {
				origins app.example.com *.example.org
				max_message 64KiB
				ping_interval 15s
				max_connections 100
				max_in_flight 8
				send_queue 256
				slow_consumer disconnect
				max_subscriptions 16
				shutdown_grace 2s
			}
		}`, `{"websocket":{"origins":["app.example.com","*.example.org"],"max_message":65536,` +
			`"ping_interval":15000000000,"max_connections":100,"max_in_flight":8,"send_queue":256,` +
			`"slow_consumer":"disconnect","max_subscriptions":16,"shutdown_grace":2000000000}}`},
		{"openrpc off", `jsonrpc {
			openrpc off
		}`, `{"openrpc":{"disabled":true}}`},
		{"openrpc block", `jsonrpc {
			openrpc {
				title "Demo API"
				version 1.2.3
				description "The demo, over HTTPS."
			}
		}`, `{"openrpc":{"title":"Demo API","version":"1.2.3","description":"The demo, over HTTPS."}}`},
		{"hub local", `jsonrpc {
			hub local
		}`, `{"hub":{"hub":"local"}}`},
		{"hub local with history", `jsonrpc {
			hub local {
				history {
					max_msgs 500
					max_age 10m
				}
			}
		}`, `{"hub":{"history":{"max_msgs":500,"max_age":600000000000},"hub":"local"}}`},
		{"hub local with default history", `jsonrpc {
			hub local {
				history
			}
		}`, `{"hub":{"history":{},"hub":"local"}}`},
		{"everything", `jsonrpc {
			service plain_test
			max_request_body 1MiB
			max_batch 10
			max_response_body 2MiB
			max_depth 8
			concurrency 2
			methods {
				allow *
			}
		}`, `{"services":[{"service":"plain_test"}],"max_request_body":1048576,"max_batch":10,` +
			`"max_response_body":2097152,"max_depth":8,"concurrency":2,"methods":{"allow":["*"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input)); err != nil {
				t.Fatalf("UnmarshalCaddyfile: %v", err)
			}
			got, err := json.Marshal(&h)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, []byte(tt.want)) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

func TestUnmarshalCaddyfileMethodsByIdentity(t *testing.T) {
	var h Handler
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`jsonrpc {
		methods {
			allow eth_* net_*
			identity {http.auth.user.id} {
				alice {
					allow *
				}
				bob {
					allow eth_get*
					deny eth_getLogs
				}
				carol allow net_version
				carol allow web3_*
			}
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(&h)
	want := `{"methods":{"allow":["eth_*","net_*"],"identity":{"key":"{http.auth.user.id}","rules":{` +
		`"alice":{"allow":["*"]},"bob":{"allow":["eth_get*"],"deny":["eth_getLogs"]},` +
		`"carol":{"allow":["net_version","web3_*"]}}}}}`
	if !jsonEqual(t, got, []byte(want)) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var shorthand Handler
	if err := shorthand.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`jsonrpc {
		methods {
			identity {header.X-User} {
				alice allow *
			}
		}
	}`)); err != nil {
		t.Fatal(err)
	}
	if k := shorthand.Methods.Identity.Key; k != "{http.request.header.X-User}" {
		t.Errorf("key %q, want the shorthand expanded", k)
	}
}

func TestUnmarshalCaddyfileMethodsByIdentityErrors(t *testing.T) {
	for _, tt := range []struct{ input, want string }{
		{"identity {\n alice allow *\n}", "methods identity: want one placeholder"},
		{"identity {x} {\n}", "no value has rules"},
		{"identity {x} {\n alice\n}", `methods identity "alice": want allow or deny`},
		{"identity {x} {\n alice permit *\n}", `methods identity "alice": unrecognized rule "permit"`},
		{"identity {x} {\n alice allow\n}", `methods identity "alice" allow: want at least one pattern`},
		{"identity {x} {\n alice {\n deny [a\n}\n}", `methods identity "alice" deny: bad pattern`},
		{"identity {x} {\n * allow a\n}", "matched exactly"},
		{"identity {x} {\n a allow *\n}\n identity {y} {\n a allow *\n}", "methods identity: specified twice"},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("jsonrpc {\n methods {\n" + tt.input + "\n}\n}"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to say %q", tt.input, err, tt.want)
		}
	}
}
