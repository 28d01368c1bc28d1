package caddymodule

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(LocalHub{})
}

// LocalHub is the in-process hub, the default: what one handler publishes
// reaches the subscribers of every handler and listener of this Caddy
// that use a local hub with the same history configuration, and no other
// process. With history, each topic keeps a bounded ring of its newest
// messages, its notifications carry their position, and subscribers who
// reconnect resume from their last one; the epoch is drawn when the hub
// is made, so positions do not outlive the process.
type LocalHub struct {
	// Keep each topic's newest messages for resuming. Without it, the hub
	// keeps nothing and notifications carry no position.
	History *HubHistory `json:"history,omitempty"`

	hub *rpccore.LocalHub
	key string
}

// HubHistory bounds what a hub keeps of each topic for resuming.
type HubHistory struct {
	// How many of the newest messages are kept. Default: 1000.
	MaxMsgs int `json:"max_msgs,omitempty"`
	// How long a message is kept; 0 keeps it until max_msgs pushes it
	// out. Default: 0.
	MaxAge caddy.Duration `json:"max_age,omitempty"`
}

// DefaultHistoryMsgs is how many messages a history keeps by default.
const DefaultHistoryMsgs = 1000

// withDefaults returns h with its defaults filled in, after checking it.
func (h HubHistory) withDefaults() (HubHistory, error) {
	if h.MaxMsgs < 0 || h.MaxAge < 0 {
		return h, fmt.Errorf("history: max_msgs and max_age must not be negative")
	}
	if h.MaxMsgs == 0 {
		h.MaxMsgs = DefaultHistoryMsgs
	}
	return h, nil
}

// CaddyModule returns the Caddy module information.
func (LocalHub) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  HubNamespace + ".local",
		New: func() caddy.Module { return new(LocalHub) },
	}
}

// localHubs holds the local hubs in use, by configuration.
var localHubs = caddy.NewUsagePool()

// pooledLocalHub is a local hub as the pool keeps it.
type pooledLocalHub struct{ *rpccore.LocalHub }

// Destruct implements caddy.Destructor.
func (p pooledLocalHub) Destruct() error { return p.Close() }

// Provision finds or makes the hub of this configuration.
func (l *LocalHub) Provision(caddy.Context) error {
	var limits rpccore.HistoryLimits
	if l.History != nil {
		h, err := l.History.withDefaults()
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

// Hub implements HubModule.
func (l *LocalHub) Hub() rpccore.Hub { return l.hub }

// Cleanup gives up this configuration's hold on the hub.
func (l *LocalHub) Cleanup() error {
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
func (l *LocalHub) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the hub's name
	for d.NextBlock(0) {
		switch d.Val() {
		case "history":
			h, err := ParseHubHistory(d)
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

// ParseHubHistory reads a history block, as the local and the NATS hubs
// write it.
func ParseHubHistory(d *caddyfile.Dispenser) (*HubHistory, error) {
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	h := &HubHistory{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "max_msgs":
			h.MaxMsgs, err = parseCount(d)
		case "max_age":
			var age caddy.Duration
			age, err = parseDuration(d)
			h.MaxAge = age
		default:
			return nil, d.Errf("unrecognized history option %q", d.Val())
		}
		if err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Interface guards
var (
	_ HubModule             = (*LocalHub)(nil)
	_ caddy.Provisioner     = (*LocalHub)(nil)
	_ caddy.CleanerUpper    = (*LocalHub)(nil)
	_ caddyfile.Unmarshaler = (*LocalHub)(nil)
)
