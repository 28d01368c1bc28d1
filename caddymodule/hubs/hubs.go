// Package hubs is the jsonrpc.hubs module namespace: the interface of a
// hub module, the history bounds the hubs share, and the loading of an
// endpoint's hub (the in-process local hub of package hubs/local when none
// is configured) and of its Caddyfile `hub` option.
package hubs

import (
	"encoding/json"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Namespace is the Caddy module namespace of hubs: a hub named local is
// the module jsonrpc.hubs.local.
const Namespace = "jsonrpc.hubs"

// Module is a module of the jsonrpc.hubs namespace: once provisioned it
// gives the hub that subscriptions follow and publishers publish through.
// Modules with the same configuration give the same hub, shared by every
// handler and listener that names it and kept across configuration
// reloads (a caddy.UsagePool); the module's Cleanup gives up its hold, and
// the last one closes the hub.
type Module interface {
	caddy.Module
	Hub() rpccore.Hub
}

// Load loads the hub module of owner's HubRaw field, or the default
// local hub when the field is empty.
func Load(ctx caddy.Context, owner any, raw json.RawMessage) (rpccore.Hub, error) {
	var mod any
	var err error
	if len(raw) == 0 {
		mod, err = ctx.LoadModuleByID(Namespace+".local", json.RawMessage(`{}`))
	} else {
		mod, err = ctx.LoadModule(owner, "HubRaw")
	}
	if err != nil {
		return nil, fmt.Errorf("loading the subscription hub: %w", err)
	}
	h, ok := mod.(Module)
	if !ok {
		return nil, fmt.Errorf("hub module %T does not give a hub", mod)
	}
	return h.Hub(), nil
}

// Parse reads `hub <name> [{ ... }]` into the hub's module object; the
// block goes to the hub module's own UnmarshalCaddyfile.
func Parse(d *caddyfile.Dispenser) (json.RawMessage, error) {
	if !d.NextArg() {
		return nil, d.Err("hub: missing the hub's name (local or nats)")
	}
	name := d.Val()
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	id := Namespace + "." + name
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

// History bounds what a hub keeps of each topic for resuming.
type History struct {
	// How many of the newest messages are kept. Default: 1000.
	MaxMsgs int `json:"max_msgs,omitempty"`
	// How long a message is kept; 0 keeps it until max_msgs pushes it
	// out. Default: 0.
	MaxAge caddy.Duration `json:"max_age,omitempty"`
}

// ParseHistory reads a history block, as the local hub writes it.
func ParseHistory(d *caddyfile.Dispenser) (*History, error) {
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	h := &History{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		known, err := ParseHistoryOption(d, h)
		if err != nil {
			return nil, err
		}
		if !known {
			return nil, d.Errf("unrecognized history option %q", d.Val())
		}
	}
	return h, nil
}

// ParseHistoryOption reads the dispenser's current option into h when it
// is one every hub's history has (max_msgs, max_age), and reports whether
// it was.
func ParseHistoryOption(d *caddyfile.Dispenser, h *History) (known bool, err error) {
	switch d.Val() {
	case "max_msgs":
		h.MaxMsgs, err = conf.ParseCount(d)
	case "max_age":
		h.MaxAge, err = conf.ParseDuration(d)
	default:
		return false, nil
	}
	return true, err
}
