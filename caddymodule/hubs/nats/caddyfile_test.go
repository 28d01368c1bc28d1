package natshub

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs"
)

func TestUnmarshalCaddyfileEveryOption(t *testing.T) {
	var m Module
	err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`nats {
		url nats://10.0.0.1:4222 tls://10.0.0.2:4222
		subject_prefix acme.rpc
		name edge-1
		user alice password s3cret
		tls {
			ca ca.pem
			cert c.pem
			key k.pem
			server_name nats.internal
		}
		history {
			max_msgs 500
			max_age 10m
			max_msgs_per_topic 50
			max_bytes 1GiB
			replicas 3
		}
		storage memory
		publish_timeout 2s
		max_pending 50
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Module{
		URLs:          []string{"nats://10.0.0.1:4222", "tls://10.0.0.2:4222"},
		SubjectPrefix: "acme.rpc", Name: "edge-1", User: "alice", Password: "s3cret",
		TLS:            &TLS{CA: "ca.pem", Cert: "c.pem", Key: "k.pem", ServerName: "nats.internal"},
		History:        &HistoryConfig{MaxMsgs: 500, MaxAge: caddy.Duration(10 * time.Minute), MaxMsgsPerTopic: 50, MaxBytes: 1 << 30, Replicas: 3},
		Storage:        "memory",
		PublishTimeout: caddy.Duration(2 * time.Second),
		MaxPending:     50,
	}
	got, _ := json.Marshal(&m)
	exp, _ := json.Marshal(&want)
	if string(got) != string(exp) {
		t.Errorf("got  %s\nwant %s", got, exp)
	}
}

func TestUnmarshalCaddyfileShortForms(t *testing.T) {
	for input, want := range map[string]string{
		`nats`:                            `{}`,
		"nats {\ntls\n}":                  `{"tls":{}}`,
		"nats {\ntoken abc\n}":            `{"token":"abc"}`,
		"nats {\nuser bob\n}":             `{"user":"bob"}`,
		"nats {\nuser bob\npassword p\n}": `{"user":"bob","password":"p"}`,
		"nats {\ncredentials a.creds\n}":  `{"credentials":"a.creds"}`,
		"nats {\nnkey seed.nk\n}":         `{"nkey":"seed.nk"}`,
		"nats {\nhistory\n}":              `{"history":{}}`,
	} {
		var m Module
		if err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err != nil {
			t.Errorf("%s: %v", input, err)
			continue
		}
		if got, _ := json.Marshal(&m); string(got) != want {
			t.Errorf("%s: got %s, want %s", input, got, want)
		}
	}
}

func TestUnmarshalCaddyfileErrors(t *testing.T) {
	for input, want := range map[string]string{
		`nats extra`:                          "wrong argument count",
		"nats {\nurl\n}":                      "url: want one or more",
		"nats {\nsubject_prefix\n}":           "subject_prefix: want one argument",
		"nats {\nsubject_prefix a b\n}":       "subject_prefix: want one argument",
		"nats {\nuser a b\n}":                 "user: want <user> [password <password>]",
		"nats {\ntls {\nca\n}\n}":             "ca: want one argument",
		"nats {\ntls {\npin x\n}\n}":          `unrecognized tls option "pin"`,
		"nats {\nhistory {\nmax_msgs 0\n}\n}": "max_msgs",
		"nats {\npublish_timeout soon\n}":     "publish_timeout: want a duration",
		"nats {\npublish_timeout 0s\n}":       "publish_timeout: want a duration",
		"nats {\nmax_pending -1\n}":           "max_pending: want a number above zero",
		"nats {\nreplicas 3\n}":               `unrecognized hub nats option "replicas"`,
	} {
		var m Module
		err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", input, err, want)
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	m := Module{History: &HistoryConfig{}}
	opts, err := m.options()
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.URLs) != 1 || opts.URLs[0] != DefaultURL || opts.SubjectPrefix != DefaultSubjectPrefix ||
		!strings.HasPrefix(opts.Name, "caddy-jsonrpc on ") || opts.PublishTimeout != DefaultPublishTimeout ||
		opts.MaxPending != DefaultMaxPending || opts.History == nil || opts.History.MaxMsgs != DefaultHistoryMsgs ||
		opts.History.Memory || m.Storage != "file" {
		t.Errorf("defaults: %+v, history %+v, module %+v", opts, opts.History, m)
	}
	if err := opts.check(); err != nil {
		t.Errorf("the defaults do not pass New's check: %v", err)
	}
	if opts.History.Replicas != 1 || opts.History.MaxMsgsPerTopic != 0 || opts.History.MaxBytes != 0 {
		t.Errorf("history defaults: %+v", opts.History)
	}
	perTopic := Module{History: &HistoryConfig{MaxMsgsPerTopic: 100}}
	if opts, err := perTopic.options(); err != nil || opts.History.MaxMsgs != 0 || opts.History.MaxMsgsPerTopic != 100 {
		t.Errorf("with max_msgs_per_topic alone, max_msgs bounds nothing: %+v, %v", opts.History, err)
	}
	core := Module{}
	if opts, err := core.options(); err != nil || opts.History != nil || core.Storage != "" {
		t.Errorf("without history: %+v, %v", opts, err)
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, tt := range []struct {
		config string
		want   string
	}{
		{`{"urls":["http://x:4222"]}`, "url:"},
		{`{"urls":["nats://"]}`, "url:"},
		{`{"subject_prefix":"a b"}`, "subject_prefix:"},
		{`{"subject_prefix":"a.>"}`, "subject_prefix:"},
		{`{"token":"t","user":"u"}`, "token, user: only one of"},
		{`{"credentials":"c","nkey":"n"}`, "credentials, nkey: only one of"},
		{`{"password":"p"}`, "password: only with user"},
		{`{"credentials":"/nonexistent/a.creds"}`, "credentials:"},
		{`{"nkey":"/nonexistent/seed"}`, "nkey:"},
		{`{"tls":{"ca":"/nonexistent/ca.pem"}}`, "tls ca:"},
		{`{"tls":{"cert":"c.pem"}}`, "tls cert, key: give both"},
		{`{"storage":"memory"}`, "storage: only with history"},
		{`{"history":{},"storage":"disk"}`, `storage: "disk" is not file or memory`},
		{`{"history":{"max_msgs":-1}}`, "history: max_msgs"},
		{`{"history":{"max_age":-1}}`, "history: max_age"},
		{`{"history":{"max_msgs_per_topic":-1}}`, "history: max_msgs_per_topic"},
		{`{"history":{"max_bytes":-1}}`, "history: max_bytes"},
		{`{"history":{"replicas":6}}`, "history: replicas must be 1 to 5"},
		{`{"history":{"replicas":-1}}`, "history: replicas must be 1 to 5"},
		{`{"publish_timeout":-1}`, "publish_timeout:"},
		{`{"max_pending":-5}`, "max_pending:"},
	} {
		var m Module
		if err := json.Unmarshal([]byte(tt.config), &m); err != nil {
			t.Fatal(err)
		}
		_, err := m.options()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error with %q", tt.config, err, tt.want)
		}
	}
}

func TestProvisionRefusesABadConfiguration(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	m := Module{SubjectPrefix: "bad prefix"}
	if err := m.Provision(ctx); err == nil || !strings.Contains(err.Error(), "subject_prefix") {
		t.Errorf("Provision = %v, want a subject_prefix error", err)
	}
}

func TestModuleIsRegistered(t *testing.T) {
	mod, err := caddy.GetModule("jsonrpc.hubs.nats")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mod.New().(hubs.Module); !ok {
		t.Errorf("%T is not a hubs.Module", mod.New())
	}
}
