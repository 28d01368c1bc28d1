package caddymodule

// discovery.go configures rpc.discover, the OpenRPC discovery method of an
// endpoint, and registers it once the services are mounted.

import (
	"context"
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/openrpc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// OpenRPCConfig configures OpenRPC discovery: the method `rpc.discover`
// (no params) answers an OpenRPC 1.3 document of the methods the endpoint
// exposes, with their params, the JSON Schemas of their params and results,
// and the descriptions their services attach. The document is generated
// once, when the configuration loads; methods that `methods` hides are left
// out. `methods` does not apply to rpc.discover itself.
type OpenRPCConfig struct {
	// Turns discovery off: rpc.discover answers -32601 Method not found.
	Disabled bool `json:"disabled,omitempty"`

	// The title of the API, in the document's info. Default: caddy-jsonrpc.
	Title string `json:"title,omitempty"`

	// The version of the API (not of OpenRPC), in the document's info.
	// Default: 0.0.0.
	Version string `json:"version,omitempty"`

	// A description of the API, in the document's info (Markdown).
	Description string `json:"description,omitempty"`
}

// registerDiscovery adds rpc.discover to s unless c turns it off. It comes
// after the services' methods, which the document describes. Under methods
// per identity, each caller is answered the document of its own methods,
// each set's generated the first time one of its callers asks.
func registerDiscovery(s *rpccore.Server, c *OpenRPCConfig, p *policy) error {
	if c == nil {
		c = new(OpenRPCConfig)
	}
	if c.Disabled {
		return nil
	}
	info := openrpc.Info{Title: c.Title, Version: c.Version, Description: c.Description}
	if p == nil || p.identity == nil {
		if err := openrpc.Register(s, info); err != nil {
			return fmt.Errorf("openrpc: %w", err)
		}
		return nil
	}
	docs := openrpc.NewDocuments(s, info)
	if _, err := docs.Get(p.identity.others, p.identity.others.lists); err != nil {
		return fmt.Errorf("openrpc: %w", err) // a method that cannot be described fails the configuration
	}
	return s.RegisterExtension(openrpc.DiscoverMethod, rpccore.Func0(func(ctx context.Context) (rpccore.RawJSON, error) {
		set := p.identity.others
		if c, _ := ctx.Value(callerKey{}).(*caller); c != nil && c.methods != nil {
			set = c.methods
		}
		doc, err := docs.Get(set, set.lists)
		return rpccore.RawJSON(doc), err
	}))
}
