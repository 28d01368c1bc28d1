package natshub

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
)

// HistoryConfig is the history block of the NATS hub: the bounds of its
// JetStream stream, over every topic of the prefix and per topic, and how
// many NATS servers hold a copy of it.
type HistoryConfig struct {
	// How many of the newest messages the stream keeps, every topic of the
	// prefix together. Default: 10000, or no bound by count when
	// max_msgs_per_topic is given.
	MaxMsgs int `json:"max_msgs,omitempty"`
	// How long a message is kept; 0 keeps it until a bound by count or
	// size pushes it out. Default: 0.
	MaxAge caddy.Duration `json:"max_age,omitempty"`
	// How many of each topic's newest messages the stream keeps, so that a
	// busy topic cannot push a quiet one out (JetStream's per-subject
	// limit, which NATS sets one higher so that a resume can tell whether
	// it missed any). 0 bounds no topic alone. With it, max_msgs bounds
	// the stream only when given.
	MaxMsgsPerTopic int `json:"max_msgs_per_topic,omitempty"`
	// How many bytes the stream keeps at most, every topic together; its
	// oldest messages go first. Default: no bound.
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// How many NATS servers of a JetStream cluster keep the stream: 3 lets
	// it outlive the loss of any one. At most 5, and at most the cluster's
	// servers; NATS refuses more, and the hub says so when Caddy loads the
	// configuration. Default: 1.
	Replicas int `json:"replicas,omitempty"`
}

// MaxReplicas is the most replicas JetStream keeps of a stream.
const MaxReplicas = 5

// parseHistory reads `history { ... }`.
func parseHistory(d *caddyfile.Dispenser) (*HistoryConfig, error) {
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	h := &HistoryConfig{}
	var common hubs.History
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		known, err := hubs.ParseHistoryOption(d, &common)
		switch {
		case known:
		case d.Val() == "max_msgs_per_topic":
			h.MaxMsgsPerTopic, err = conf.ParseCount(d)
		case d.Val() == "max_bytes":
			h.MaxBytes, err = conf.ParseSize(d)
		case d.Val() == "replicas":
			h.Replicas, err = conf.ParseCount(d)
		default:
			return nil, d.Errf("unrecognized history option %q", d.Val())
		}
		if err != nil {
			return nil, err
		}
	}
	h.MaxMsgs, h.MaxAge = common.MaxMsgs, common.MaxAge
	return h, nil
}

// history checks the history and storage options and fills in their
// defaults.
func (m *Module) history() (*History, error) {
	if m.History == nil {
		if m.Storage != "" {
			return nil, fmt.Errorf("storage: only with history")
		}
		return nil, nil
	}
	h := m.History
	switch {
	case h.MaxMsgs < 0:
		return nil, fmt.Errorf("history: max_msgs must not be negative")
	case h.MaxAge < 0:
		return nil, fmt.Errorf("history: max_age must not be negative")
	case h.MaxMsgsPerTopic < 0:
		return nil, fmt.Errorf("history: max_msgs_per_topic must not be negative")
	case h.MaxBytes < 0:
		return nil, fmt.Errorf("history: max_bytes must not be negative")
	case h.Replicas < 0 || h.Replicas > MaxReplicas:
		return nil, fmt.Errorf("history: replicas must be 1 to %d (JetStream keeps at most %d copies), got %d",
			MaxReplicas, MaxReplicas, h.Replicas)
	}
	if h.MaxMsgs == 0 && h.MaxMsgsPerTopic == 0 {
		h.MaxMsgs = DefaultHistoryMsgs
	}
	if h.Replicas == 0 {
		h.Replicas = 1
	}
	switch m.Storage {
	case "":
		m.Storage = "file"
	case "file", "memory":
	default:
		return nil, fmt.Errorf("storage: %q is not file or memory", m.Storage)
	}
	return &History{
		MaxMsgs: h.MaxMsgs, MaxAge: time.Duration(h.MaxAge), MaxMsgsPerTopic: h.MaxMsgsPerTopic,
		MaxBytes: h.MaxBytes, Replicas: h.Replicas, Memory: m.Storage == "memory",
	}, nil
}
