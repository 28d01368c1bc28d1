// Package demo is the jsonrpc.services.demo Caddy module: the methods of
// package demo (the JSON-RPC 2.0 specification's examples and the
// benchmark workload) as a service that `service demo` mounts.
package demo

import (
	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	demomethods "github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(Service{})
}

// Service serves the demo methods: subtract, sum, update, notify_hello,
// notify_sum and get_data from the JSON-RPC 2.0 specification, and add,
// addInt, NullableFloatToNullableFloat, Test2 and StringMe from the
// benchmark workload. It has no options.
type Service struct{}

// CaddyModule returns the Caddy module information.
func (Service) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "jsonrpc.services.demo",
		New: func() caddy.Module { return new(Service) },
	}
}

// RegisterMethods registers the demo methods into s.
func (Service) RegisterMethods(s *rpccore.Server) error { return demomethods.Register(s) }

// Interface guards
var _ caddymodule.Service = (*Service)(nil)
