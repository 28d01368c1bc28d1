package endpoint

import (
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/openrpc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// registerDiscovery registers rpc.discover on s, unless c turns it off,
// after the services' methods, which the document describes; p, when it
// holds methods per identity, answers each caller the document of its own.
func registerDiscovery(s *rpccore.Server, c *caddymodule.OpenRPCConfig, p *policy.Policy) error {
	if c == nil {
		c = new(caddymodule.OpenRPCConfig)
	}
	if c.Disabled {
		return nil
	}
	return p.RegisterDiscovery(s, openrpc.Info{Title: c.Title, Version: c.Version, Description: c.Description})
}
