package httphandler

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

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
		{"hub without a name", `jsonrpc {
			hub
		}`, "hub: missing the hub's name"},
		{"hub not compiled in", `jsonrpc {
			hub redis
		}`, "hub redis: no module jsonrpc.hubs.redis"},
		{"hub twice", `jsonrpc {
			hub local
			hub local
		}`, "hub: specified twice"},
		{"unknown hub option", `jsonrpc {
			hub local {
				shards 4
			}
		}`, `unrecognized hub local option "shards"`},
		{"unknown history option", `jsonrpc {
			hub local {
				history {
					max_bytes 1MiB
				}
			}
		}`, `unrecognized history option "max_bytes"`},
		{"history count not a number", `jsonrpc {
			hub local {
				history {
					max_msgs many
				}
			}
		}`, "max_msgs"},
		{"openrpc with a bad argument", `jsonrpc {
			openrpc on
		}`, `openrpc: unexpected argument "on"`},
		{"openrpc off with a block", `jsonrpc {
			openrpc off {
				title x
			}
		}`, "openrpc off: takes no block"},
		{"openrpc twice", `jsonrpc {
			openrpc off
			openrpc off
		}`, "openrpc: specified twice"},
		{"unknown openrpc option", `jsonrpc {
			openrpc {
				license MIT
			}
		}`, `unrecognized openrpc option "license"`},
		{"openrpc option twice", `jsonrpc {
			openrpc {
				title a
				title b
			}
		}`, "openrpc title: specified twice"},
		{"openrpc title of two words", `jsonrpc {
			openrpc {
				title Demo API
			}
		}`, "openrpc title: want one non-empty value"},
		{"websocket with a bad argument", `jsonrpc {
			websocket on
		}`, `websocket: unexpected argument "on"`},
		{"websocket off with more", `jsonrpc {
			websocket off now
		}`, `websocket: unexpected argument "now"`},
		{"websocket off with a block", `jsonrpc {
			websocket off {
				max_message 1KiB
			}
		}`, "websocket off: takes no block"},
		{"unknown websocket option", `jsonrpc {
			websocket {
				bogus 1
			}
		}`, `unrecognized websocket option "bogus"`},
		{"websocket option twice", `jsonrpc {
			websocket {
				send_queue 1
				send_queue 2
			}
		}`, "websocket send_queue: specified twice"},
		{"websocket origins without patterns", `jsonrpc {
			websocket {
				origins
			}
		}`, "websocket origins: want at least one host pattern"},
		{"websocket origins bad pattern", `jsonrpc {
			websocket {
				origins [bad
			}
		}`, `websocket origins: bad pattern "[bad"`},
		{"websocket max_message not a size", `jsonrpc {
			websocket {
				max_message lots
			}
		}`, `websocket max_message: invalid size "lots"`},
		{"websocket ping_interval not a duration", `jsonrpc {
			websocket {
				ping_interval often
			}
		}`, `websocket ping_interval: invalid duration "often"`},
		{"websocket ping_interval zero", `jsonrpc {
			websocket {
				ping_interval 0s
			}
		}`, "websocket ping_interval: must be greater than zero"},
		{"websocket max_connections zero", `jsonrpc {
			websocket {
				max_connections 0
			}
		}`, "websocket max_connections: must be greater than zero"},
		{"websocket max_in_flight not a number", `jsonrpc {
			websocket {
				max_in_flight many
			}
		}`, `websocket max_in_flight: invalid number "many"`},
		{"websocket send_queue negative", `jsonrpc {
			websocket {
				send_queue -1
			}
		}`, "websocket send_queue: must be greater than zero"},
		{"websocket max_subscriptions two args", `jsonrpc {
			websocket {
				max_subscriptions 1 2
			}
		}`, "websocket max_subscriptions: want one number"},
		{"websocket shutdown_grace not a duration", `jsonrpc {
			websocket {
				shutdown_grace soon
			}
		}`, `websocket shutdown_grace: invalid duration "soon"`},
		{"websocket slow_consumer unknown", `jsonrpc {
			websocket {
				slow_consumer wait
			}
		}`, `websocket slow_consumer: "wait" is not drop_oldest or disconnect`},
		{"websocket slow_consumer missing", `jsonrpc {
			websocket {
				slow_consumer
			}
		}`, "websocket slow_consumer: want drop_oldest or disconnect"},
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
