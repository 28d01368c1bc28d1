package httphandler

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestParseRateLimit(t *testing.T) {
	var h Handler
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`jsonrpc {
		rate_limit {
			zone per_client {
				key {remote_host}
				events 50
				window 1m
				cost eth_getLogs 10
				cost eth_call 2
			}
			zone per_key {
				key {header.X-Api-Key}
				events 1000
				window 1h
				methods eth_* net_*
				methods web3_*
				max_keys 5000
				local
			}
			sync_interval 250ms
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(&h)
	want := `{"rate_limit":{"zones":{` +
		`"per_client":{"key":"{http.request.remote.host}","events":50,"window":60000000000,` +
		`"costs":[{"method":"eth_getLogs","cost":10},{"method":"eth_call","cost":2}]},` +
		`"per_key":{"key":"{http.request.header.X-Api-Key}","events":1000,"window":3600000000000,` +
		`"methods":["eth_*","net_*","web3_*"],"max_keys":5000,"local":true}},"sync_interval":250000000}}`
	if !jsonEqual(t, got, []byte(want)) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestParseRateLimitErrors(t *testing.T) {
	zone := func(body string) string {
		return "jsonrpc {\n rate_limit {\n zone z {\n events 10\n window 1s\n" + body + "\n}\n}\n}"
	}
	tests := []struct {
		name, input, want string
	}{
		{"arguments", "jsonrpc {\n rate_limit z\n}", "rate_limit: takes a block of zones"},
		{"empty", "jsonrpc {\n rate_limit {\n}\n}", "rate_limit: empty block"},
		{"not a zone", "jsonrpc {\n rate_limit {\n bucket b\n}\n}", `rate_limit: unrecognized option "bucket"`},
		{"zone without a name", "jsonrpc {\n rate_limit {\n zone {\n}\n}\n}", "rate_limit zone: want one name"},
		{"zone twice", "jsonrpc {\n rate_limit {\n zone z {\n events 1\n window 1s\n}\n zone z {\n events 1\n window 1s\n}\n}\n}",
			"rate_limit zone z: specified twice"},
		{"no events", "jsonrpc {\n rate_limit {\n zone z {\n window 1s\n}\n}\n}", "rate_limit zone z: events: required"},
		{"no window", "jsonrpc {\n rate_limit {\n zone z {\n events 1\n}\n}\n}", "rate_limit zone z: window: required"},
		{"events twice", zone("events 2"), "rate_limit zone z events: specified twice"},
		{"events not a number", "jsonrpc {\n rate_limit {\n zone z {\n events many\n}\n}\n}", `events: invalid number "many"`},
		{"bad window", "jsonrpc {\n rate_limit {\n zone z {\n window soon\n}\n}\n}", `window: invalid duration "soon"`},
		{"key without a value", zone("key"), "rate_limit zone z key: want one placeholder"},
		{"methods without patterns", zone("methods"), "rate_limit zone z methods: want at least one pattern"},
		{"cost without a number", zone("cost eth_call"), "rate_limit zone z cost: want a method pattern and a number"},
		{"cost not a number", zone("cost eth_call lots"), `rate_limit zone z cost eth_call: invalid number "lots"`},
		{"cost over events", zone("cost eth_call 11"), "cost eth_call: 11 is more than the zone's 10 events"},
		{"bad pattern", zone("methods [x"), "methods: bad pattern"},
		{"local with an argument", zone("local yes"), "rate_limit zone z local: takes no arguments"},
		{"sync_interval too short", "jsonrpc {\n rate_limit {\n sync_interval 1ms\n}\n}", "rate_limit sync_interval: must be at least 10ms"},
		{"sync_interval twice", "jsonrpc {\n rate_limit {\n sync_interval 1s\n sync_interval 2s\n}\n}", "rate_limit sync_interval: specified twice"},
		{"bad sync_interval", "jsonrpc {\n rate_limit {\n sync_interval soon\n}\n}", `rate_limit sync_interval: invalid duration "soon"`},
		{"unknown option", zone("burst 5"), `rate_limit zone z: unrecognized option "burst"`},
		{"twice", "jsonrpc {\n rate_limit {\n zone a {\n events 1\n window 1s\n}\n}\n rate_limit {\n zone b {\n events 1\n window 1s\n}\n}\n}",
			"rate_limit: specified twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to say %q", err, tt.want)
			}
		})
	}
}
