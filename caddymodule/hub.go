package caddymodule

// hub.go loads the subscription hub of a handler or stream listener: a
// module in the jsonrpc.hubs namespace, the in-process local hub when none
// is configured.

import (
	"encoding/json"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// HubNamespace is the Caddy module namespace of hubs: a hub named local is
// the module jsonrpc.hubs.local.
const HubNamespace = "jsonrpc.hubs"

// HubModule is a module of the jsonrpc.hubs namespace: once provisioned it
// gives the hub that subscriptions follow and publishers publish through.
// Modules with the same configuration give the same hub, shared by every
// handler and listener that names it and kept across configuration
// reloads (a caddy.UsagePool); the module's Cleanup gives up its hold, and
// the last one closes the hub.
type HubModule interface {
	caddy.Module
	Hub() rpccore.Hub
}

// loadHub loads the hub module of owner's HubRaw field, or the default
// local hub when the field is empty.
func loadHub(ctx caddy.Context, owner any, raw json.RawMessage) (rpccore.Hub, error) {
	var mod any
	var err error
	if len(raw) == 0 {
		mod, err = ctx.LoadModuleByID(HubNamespace+".local", json.RawMessage(`{}`))
	} else {
		mod, err = ctx.LoadModule(owner, "HubRaw")
	}
	if err != nil {
		return nil, fmt.Errorf("loading the subscription hub: %w", err)
	}
	h, ok := mod.(HubModule)
	if !ok {
		return nil, fmt.Errorf("hub module %T does not give a hub", mod)
	}
	return h.Hub(), nil
}

// parseHub reads `hub <name> [{ ... }]` into the hub's module object; the
// block goes to the hub module's own UnmarshalCaddyfile.
func parseHub(d *caddyfile.Dispenser) (json.RawMessage, error) {
	if !d.NextArg() {
		return nil, d.Err("hub: missing the hub's name (local or nats)")
	}
	name := d.Val()
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	id := HubNamespace + "." + name
	mod, err := caddy.GetModule(id)
	if err != nil {
		return nil, d.Errf("hub %s: no module %s (is it compiled in?)", name, id)
	}
	hub := mod.New()
	seg := d.NextSegment()
	if unm, ok := hub.(caddyfile.Unmarshaler); ok {
		if err := unm.UnmarshalCaddyfile(caddyfile.NewDispenser(seg)); err != nil {
			return nil, err
		}
	} else if len(seg) > 1 {
		return nil, d.Errf("hub %s: takes no options", name)
	}
	return caddyconfig.JSONModuleObject(hub, "hub", name, nil), nil
}
