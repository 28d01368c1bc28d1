package httphandler

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// hubOf provisions a handler with the hub configuration raw (none when
// empty) in ctx and returns its hub.
func hubOf(t *testing.T, ctx caddy.Context, raw string) rpccore.Hub {
	t.Helper()
	h := &Handler{}
	if raw != "" {
		h.HubRaw = json.RawMessage(raw)
	}
	if err := h.Provision(ctx); err != nil {
		t.Fatalf("Provision with hub %s: %v", raw, err)
	}
	return h.ep.Server.Hub()
}

func TestHandlersWithTheSameHubConfigurationShareIt(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	def := hubOf(t, ctx, "")
	local := hubOf(t, ctx, `{"hub":"local"}`)
	hist := hubOf(t, ctx, `{"hub":"local","history":{"max_msgs":5}}`)
	hist2 := hubOf(t, ctx, `{"hub":"local","history":{"max_msgs":5}}`)
	histDefault := hubOf(t, ctx, `{"hub":"local","history":{}}`)
	if def != local {
		t.Fatal("no hub and {\"hub\":\"local\"} are the same hub")
	}
	if hist != hist2 || hist == local || hist == histDefault {
		t.Fatal("hubs are shared by configuration, and only then")
	}
	if hh, ok := hist.(rpccore.HistoryHub); !ok || !hh.KeepsHistory() {
		t.Fatal("a local hub with history keeps it")
	}
	if def.(rpccore.HistoryHub).KeepsHistory() {
		t.Fatal("the default hub keeps no history")
	}
	got := make(chan rpccore.Message, 1)
	if _, err := hist2.Subscribe("t", func(m rpccore.Message) { got <- m }); err != nil {
		t.Fatal(err)
	}
	if err := hist.Publish("t", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m.Position.Offset != 1 {
		t.Fatalf("got %+v", m)
	}
}

func TestAHubOutlivesAReloadAndClosesWithItsLastUser(t *testing.T) {
	const raw = `{"hub":"local","history":{"max_msgs":7}}`
	old, cancelOld := caddy.NewContext(caddy.Context{Context: context.Background()})
	before := hubOf(t, old, raw)
	_ = before.Publish("t", []byte(`"kept"`))
	next, cancelNext := caddy.NewContext(caddy.Context{Context: context.Background()})
	after := hubOf(t, next, raw) // the new configuration is provisioned first
	cancelOld()
	if after != before {
		t.Fatal("a reload keeps the hub")
	}
	if err := after.Publish("t", []byte(`"still"`)); err != nil {
		t.Fatalf("the hub works after the old configuration's cleanup: %v", err)
	}
	cancelNext()
	if err := after.Publish("t", []byte(`"gone"`)); err == nil {
		t.Fatal("the last user's cleanup closes the hub")
	}
}

func TestHubConfigurationErrors(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	for raw, want := range map[string]string{
		`{"hub":"local","history":{"max_msgs":-1}}`: "must not be negative",
		`{"hub":"nowhere"}`:                         "jsonrpc.hubs.nowhere",
	} {
		h := &Handler{HubRaw: json.RawMessage(raw)}
		if err := h.Provision(ctx); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("hub %s: got %v, want an error with %q", raw, err, want)
		}
	}
}
