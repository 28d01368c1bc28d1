// Package local is the jsonrpc.hubs.local module: the in-process hub that
// every handler and stream listener uses unless it names another.
package local

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(Module{})
}

// Module is the jsonrpc.hubs.local module, the in-process hub and the
// default: what one handler publishes reaches the subscribers of every
// handler and listener of this Caddy that use a local hub with the same history configuration, and no other
// process. With history, each topic keeps a bounded ring of its newest
// messages, its notifications carry their position, and subscribers who
// reconnect resume from their last one; the epoch is drawn when the hub
// is made, so positions do not outlive the process.
type Module struct {
	// Keep each topic's newest messages for resuming. Without it, the hub
	// keeps nothing and notifications carry no position.
	History *hubs.History `json:"history,omitempty"`

	hub *rpccore.LocalHub
	key string
}

// DefaultHistoryMsgs is how many messages a history keeps by default.
const DefaultHistoryMsgs = 1000

// withDefaults returns h with its defaults filled in, after checking it.
func withDefaults(h hubs.History) (hubs.History, error) {
	if h.MaxMsgs < 0 || h.MaxAge < 0 {
		return h, fmt.Errorf("history: max_msgs and max_age must not be negative")
	}
	if h.MaxMsgs == 0 {
		h.MaxMsgs = DefaultHistoryMsgs
	}
	return h, nil
}

// CaddyModule returns the Caddy module information.
func (Module) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  hubs.Namespace + ".local",
		New: func() caddy.Module { return new(Module) },
	}
}

// localHubs holds the local hubs in use, by configuration.
var localHubs = caddy.NewUsagePool()

// pooledLocalHub is a local hub as the pool keeps it.
type pooledLocalHub struct{ *rpccore.LocalHub }

// Destruct implements caddy.Destructor.
func (p pooledLocalHub) Destruct() error { return p.Close() }

// Provision finds or makes the hub of this configuration.
func (l *Module) Provision(caddy.Context) error {
	var limits rpccore.HistoryLimits
	if l.History != nil {
		h, err := withDefaults(*l.History)
		if err != nil {
			return err
		}
		limits = rpccore.HistoryLimits{MaxMessages: h.MaxMsgs, MaxAgeNanos: int64(time.Duration(h.MaxAge))}
	}
	key, _ := json.Marshal(limits)
	v, _, err := localHubs.LoadOrNew(string(key), func() (caddy.Destructor, error) {
		return pooledLocalHub{rpccore.NewLocalHubWithHistory(limits)}, nil
	})
	if err != nil {
		return err
	}
	l.hub, l.key = v.(pooledLocalHub).LocalHub, string(key)
	return nil
}

// Hub implements hubs.Module.
func (l *Module) Hub() rpccore.Hub { return l.hub }

// Cleanup gives up this configuration's hold on the hub.
func (l *Module) Cleanup() error {
	if l.hub != nil {
		_, _ = localHubs.Delete(l.key)
		l.hub = nil
	}
	return nil
}

// UnmarshalCaddyfile sets up the hub from Caddyfile tokens:
//
//	hub local {
//	    history {
//	        max_msgs <count>
//	        max_age  <duration>
//	    }
//	}
func (l *Module) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the hub's name
	for d.NextBlock(0) {
		switch d.Val() {
		case "history":
			h, err := hubs.ParseHistory(d)
			if err != nil {
				return err
			}
			l.History = h
		default:
			return d.Errf("unrecognized hub local option %q", d.Val())
		}
	}
	return nil
}

// Interface guards
var (
	_ hubs.Module           = (*Module)(nil)
	_ caddy.Provisioner     = (*Module)(nil)
	_ caddy.CleanerUpper    = (*Module)(nil)
	_ caddyfile.Unmarshaler = (*Module)(nil)
)
