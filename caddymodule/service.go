package caddymodule

// service.go defines the jsonrpc.services namespace.

import (
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// ServiceNamespace is the Caddy module namespace of services: a service
// called name has the module ID "jsonrpc.services.<name>".
const ServiceNamespace = "jsonrpc.services"

// Service is a set of JSON-RPC methods, packaged as a Caddy module in the
// jsonrpc.services namespace. A handler provisions each service it mounts
// (so a service may implement caddy.Provisioner, caddy.Validator and
// caddy.CleanerUpper) and then calls RegisterMethods once, usually to call
// s.RegisterMethods with an rpccore.Methods map.
type Service interface {
	// RegisterMethods registers the service's methods (and subscriptions)
	// into s.
	RegisterMethods(s *rpccore.Server) error
}
