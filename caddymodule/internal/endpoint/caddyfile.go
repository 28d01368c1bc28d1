package endpoint

// caddyfile.go parses the Caddyfile options that the jsonrpc directive and
// a stream listener share.

import (
	"encoding/json"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Fields points at the fields of the options that the handler
// and a stream listener share, for ParseOption.
type Fields struct {
	Services        *[]json.RawMessage
	MaxRequest      *int64
	MaxRequestName  string // max_request_body, or max_message
	MaxBatch        *int
	MaxResponseBody *int64
	MaxDepth        *int
	Concurrency     *int
	Methods         **policy.MethodFilter
	RateLimit       **policy.RateLimit
	Hub             *json.RawMessage
	OpenRPC         **caddymodule.OpenRPCConfig
}

// ParseOption parses option into f when it is one of the shared
// options, and reports whether it was.
func ParseOption(d *caddyfile.Dispenser, option string, f Fields) (handled bool, err error) {
	switch option {
	case "service":
		var svc json.RawMessage
		if svc, err = parseService(d); err == nil {
			*f.Services = append(*f.Services, svc)
		}
	case f.MaxRequestName:
		*f.MaxRequest, err = conf.ParseSize(d)
	case "max_response_body":
		*f.MaxResponseBody, err = conf.ParseSize(d)
	case "max_batch":
		*f.MaxBatch, err = conf.ParseCount(d)
	case "max_depth":
		*f.MaxDepth, err = conf.ParseCount(d)
	case "concurrency":
		*f.Concurrency, err = conf.ParseCount(d)
	case "methods":
		*f.Methods, err = policy.ParseMethods(d)
	case "rate_limit":
		*f.RateLimit, err = policy.ParseRateLimit(d)
	case "hub":
		*f.Hub, err = hubs.Parse(d)
	case "openrpc":
		*f.OpenRPC, err = parseOpenRPC(d)
	default:
		return false, nil
	}
	return true, err
}

// parseService reads `service <name> [{ ... }]` into the service's module
// object. The block, if any, goes to the service module's own
// UnmarshalCaddyfile.
func parseService(d *caddyfile.Dispenser) (json.RawMessage, error) {
	if !d.NextArg() {
		return nil, d.Err("service: missing the service's name")
	}
	name := d.Val()
	id := caddymodule.ServiceNamespace + "." + name
	mod, err := caddy.GetModule(id)
	if err != nil {
		return nil, d.Errf("service %s: no module %s (is it compiled in?)", name, id)
	}
	svc := mod.New()
	seg := d.NextSegment()
	if unm, ok := svc.(caddyfile.Unmarshaler); ok {
		if err := unm.UnmarshalCaddyfile(caddyfile.NewDispenser(seg)); err != nil {
			return nil, err
		}
	} else if len(seg) > 1 {
		return nil, d.Errf("service %s: takes no options", name)
	}
	return caddyconfig.JSONModuleObject(svc, "service", name, nil), nil
}

// parseOpenRPC reads `openrpc off` or the openrpc block.
func parseOpenRPC(d *caddyfile.Dispenser) (*caddymodule.OpenRPCConfig, error) {
	c := new(caddymodule.OpenRPCConfig)
	if off, err := conf.ParseOff(d, "openrpc"); off || err != nil {
		c.Disabled = off
		return c, err
	}
	seen := conf.GivenOptions{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		if err := seen.Once(d, "openrpc ", option); err != nil {
			return nil, err
		}
		var field *string
		switch option {
		case "title":
			field = &c.Title
		case "version":
			field = &c.Version
		case "description":
			field = &c.Description
		default:
			return nil, d.Errf("unrecognized openrpc option %q (want title, version or description)", option)
		}
		if !d.AllArgs(field) || *field == "" {
			return nil, d.Errf("openrpc %s: want one non-empty value (quote it when it has spaces)", option)
		}
	}
	return c, nil
}

// SlowConsumerPolicies maps the slow_consumer values to rpccore policies.
var SlowConsumerPolicies = map[string]rpccore.SlowConsumerPolicy{
	"drop_oldest": rpccore.DropOldest,
	"disconnect":  rpccore.Disconnect,
}
