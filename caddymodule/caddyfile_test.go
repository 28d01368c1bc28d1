package caddymodule

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

func TestUnmarshalCaddyfileErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string // part of the error
	}{
		{"argument", `jsonrpc foo`, "wrong argument count"},
		{"unknown option", `jsonrpc {
			bogus 1
		}`, `unrecognized jsonrpc option "bogus"`},
		{"websocket not yet", `jsonrpc {
			websocket
		}`, `unrecognized jsonrpc option "websocket"`},
		{"service without name", `jsonrpc {
			service
		}`, "service: missing the service's name"},
		{"unknown service", `jsonrpc {
			service nosuch
		}`, "service nosuch: no module jsonrpc.services.nosuch"},
		{"service without options given arguments", `jsonrpc {
			service plain_test extra
		}`, "service plain_test: takes no options"},
		{"service without options given a block", `jsonrpc {
			service plain_test {
				prefix x
			}
		}`, "service plain_test: takes no options"},
		{"service's own error", `jsonrpc {
			service caddyfile_test {
				nope
			}
		}`, `unknown option "nope"`},
		{"max_request_body missing", `jsonrpc {
			max_request_body
		}`, "max_request_body: want one size"},
		{"max_request_body two", `jsonrpc {
			max_request_body 1 2
		}`, "max_request_body: want one size"},
		{"max_request_body bad", `jsonrpc {
			max_request_body lots
		}`, `max_request_body: invalid size "lots"`},
		{"max_request_body negative", `jsonrpc {
			max_request_body -1
		}`, `max_request_body: invalid size "-1"`},
		{"max_request_body zero", `jsonrpc {
			max_request_body 0
		}`, "max_request_body: must be greater than zero"},
		{"max_request_body too large", `jsonrpc {
			max_request_body 16EiB
		}`, "max_request_body:"},
		{"max_response_body bad", `jsonrpc {
			max_response_body 1XB
		}`, `max_response_body: invalid size "1XB"`},
		{"max_response_body zero", `jsonrpc {
			max_response_body 0KiB
		}`, "max_response_body: must be greater than zero"},
		{"max_batch missing", `jsonrpc {
			max_batch
		}`, "max_batch: want one number"},
		{"max_batch not a number", `jsonrpc {
			max_batch many
		}`, `max_batch: invalid number "many"`},
		{"max_batch zero", `jsonrpc {
			max_batch 0
		}`, "max_batch: must be greater than zero, got 0"},
		{"max_depth negative", `jsonrpc {
			max_depth -3
		}`, "max_depth: must be greater than zero, got -3"},
		{"max_depth units", `jsonrpc {
			max_depth 1KiB
		}`, `max_depth: invalid number "1KiB"`},
		{"concurrency zero", `jsonrpc {
			concurrency 0
		}`, "concurrency: must be greater than zero"},
		{"concurrency two args", `jsonrpc {
			concurrency 1 2
		}`, "concurrency: want one number"},
		{"option twice", `jsonrpc {
			max_batch 1
			max_batch 2
		}`, "max_batch: specified twice"},
		{"methods with arguments", `jsonrpc {
			methods allow
		}`, "methods: takes a block"},
		{"methods empty", `jsonrpc {
			methods {
			}
		}`, "methods: empty block"},
		{"methods without block", `jsonrpc {
			methods
		}`, "methods: empty block"},
		{"methods unknown rule", `jsonrpc {
			methods {
				permit add
			}
		}`, `methods: unrecognized rule "permit"`},
		{"methods allow without patterns", `jsonrpc {
			methods {
				allow
			}
		}`, "methods allow: want at least one pattern"},
		{"methods bad pattern", `jsonrpc {
			methods {
				deny [a-
			}
		}`, `methods deny: bad pattern "[a-"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
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
