package caddymodule

// hub.go keeps the broadcast hub that subscriptions publish through in a
// caddy.UsagePool, so that a configuration reload keeps it (and what its
// publishers reach) instead of making a new one.

import (
	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// hubs holds the process's hub while a configuration uses it.
var hubs = caddy.NewUsagePool()

// hubKey names the one in-process hub.
const hubKey = "local"

// pooledHub is the hub as the pool keeps it.
type pooledHub struct{ *rpccore.LocalHub }

// Destruct implements caddy.Destructor; the hub holds nothing to release.
func (pooledHub) Destruct() error { return nil }

// acquireHub returns the shared hub, counting one more user; every call
// must be matched by releaseHub.
func acquireHub() (rpccore.Hub, error) {
	v, _, err := hubs.LoadOrNew(hubKey, func() (caddy.Destructor, error) {
		return pooledHub{rpccore.NewLocalHub()}, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(pooledHub).LocalHub, nil
}

// releaseHub counts one user less.
func releaseHub() { _, _ = hubs.Delete(hubKey) }
