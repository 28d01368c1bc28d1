package natshub

import (
	"errors"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestModulesWithOneConfigurationShareTheirHub(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	url := unreachableURL(t)
	provision := func(prefix string) *Module {
		t.Helper()
		m := &Module{URLs: []string{url}, SubjectPrefix: prefix, History: &HistoryConfig{}}
		if err := m.Provision(ctx); err != nil {
			t.Fatalf("Provision with NATS unreachable: %v", err)
		}
		return m
	}
	first, second, other := provision("shared"), provision("shared"), provision("other")
	if first.Hub() != second.Hub() {
		t.Error("two modules with one configuration have two hubs")
	}
	if first.Hub() == other.Hub() {
		t.Error("modules with different prefixes share a hub")
	}
	hub := first.Hub()
	first.Cleanup()
	if err := hub.Publish("t", []byte(`1`)); err != nil {
		t.Errorf("the hub closed while a module still holds it: %v", err)
	}
	second.Cleanup()
	if err := hub.Publish("t", []byte(`1`)); !errors.Is(err, rpccore.ErrHubClosed) {
		t.Errorf("Publish once no module holds the hub = %v, want it closed", err)
	}
	other.Cleanup()
}
