package caddymodule

// caddyfile.go parses the jsonrpc directive of the Caddyfile.

import (
	"encoding/json"
	"math"
	"path"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("jsonrpc", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("jsonrpc", httpcaddyfile.Before, "respond")
}

// parseCaddyfile makes a Handler of a jsonrpc directive.
func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var handler Handler
	err := handler.UnmarshalCaddyfile(h.Dispenser)
	return &handler, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	jsonrpc [<matcher>] {
//	    service <name> [{
//	        <the service's own options>
//	    }]
//	    max_request_body  <size>
//	    max_batch         <items>
//	    max_response_body <size>
//	    max_depth         <levels>
//	    concurrency       <calls>
//	    methods {
//	        allow <patterns...>
//	        deny  <patterns...>
//	        identity <placeholder> {
//	            <value> {
//	                allow <patterns...>
//	                deny  <patterns...>
//	            }
//	            <value> allow|deny <patterns...>
//	        }
//	    }
//	    rate_limit {
//	        sync_interval <duration>
//	        zone <name> {
//	            key      <placeholder>
//	            events   <events>
//	            window   <duration>
//	            methods  <patterns...>
//	            cost     <pattern> <events>
//	            max_keys <keys>
//	            local
//	        }
//	    }
//	    openrpc off
//	    openrpc {
//	        title       <text>
//	        version     <text>
//	        description <text>
//	    }
//	    websocket off
//	    websocket {
//	        origins           <host patterns...>
//	        max_message       <size>
//	        ping_interval     <duration>
//	        max_connections   <connections>
//	        max_in_flight     <documents>
//	        send_queue        <notifications>
//	        slow_consumer     drop_oldest|disconnect
//	        max_subscriptions <subscriptions>
//	    }
//	}
//
// service may be repeated to mount several services; allow and deny may be
// repeated, their patterns add up; so may zone, each name once. Sizes take units, as elsewhere in Caddy
// (64KiB, 1MiB, 1MB).
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive's name
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := givenOptions{}
	for d.NextBlock(0) {
		option := d.Val()
		if option != "service" {
			if err := seen.once(d, "", option); err != nil {
				return err
			}
		}
		handled, err := parseEndpointOption(d, option, endpointFields{
			services: &h.ServicesRaw, maxRequest: &h.MaxRequestBody, maxRequestName: "max_request_body",
			maxBatch: &h.MaxBatch, maxResponseBody: &h.MaxResponseBody, maxDepth: &h.MaxDepth,
			concurrency: &h.Concurrency, methods: &h.Methods, rateLimit: &h.RateLimit, hub: &h.HubRaw,
			openrpc: &h.OpenRPC,
		})
		switch {
		case handled:
		case option == "websocket":
			h.WebSocket, err = parseWebSocket(d)
		default:
			return d.Errf("unrecognized jsonrpc option %q", option)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// endpointFields points at the fields of the options that the handler
// and a stream listener share, for parseEndpointOption.
type endpointFields struct {
	services        *[]json.RawMessage
	maxRequest      *int64
	maxRequestName  string // max_request_body, or max_message
	maxBatch        *int
	maxResponseBody *int64
	maxDepth        *int
	concurrency     *int
	methods         **MethodFilter
	rateLimit       **RateLimit
	hub             *json.RawMessage
	openrpc         **OpenRPCConfig
}

// parseEndpointOption parses option into f when it is one of the shared
// options, and reports whether it was.
func parseEndpointOption(d *caddyfile.Dispenser, option string, f endpointFields) (handled bool, err error) {
	switch option {
	case "service":
		var svc json.RawMessage
		if svc, err = parseService(d); err == nil {
			*f.services = append(*f.services, svc)
		}
	case f.maxRequestName:
		*f.maxRequest, err = parseSize(d)
	case "max_response_body":
		*f.maxResponseBody, err = parseSize(d)
	case "max_batch":
		*f.maxBatch, err = parseCount(d)
	case "max_depth":
		*f.maxDepth, err = parseCount(d)
	case "concurrency":
		*f.concurrency, err = parseCount(d)
	case "methods":
		*f.methods, err = parseMethods(d)
	case "rate_limit":
		*f.rateLimit, err = parseRateLimit(d)
	case "hub":
		*f.hub, err = parseHub(d)
	case "openrpc":
		*f.openrpc, err = parseOpenRPC(d)
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
	id := ServiceNamespace + "." + name
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

// parseSize reads the size argument of the current option.
func parseSize(d *caddyfile.Dispenser) (int64, error) {
	option := d.Val()
	var arg string
	if !d.AllArgs(&arg) {
		return 0, d.Errf("%s: want one size, such as 1MiB", option)
	}
	n, err := humanize.ParseBytes(arg)
	if err != nil {
		return 0, d.Errf("%s: invalid size %q (want bytes, with or without a unit: 512, 64KiB, 1MiB, 1MB)",
			option, arg)
	}
	if n == 0 {
		return 0, d.Errf("%s: must be greater than zero", option)
	}
	if n > math.MaxInt64 || n > math.MaxInt {
		return 0, d.Errf("%s: %s is too large", option, arg)
	}
	return int64(n), nil
}

// parseCount reads the positive integer argument of the current option.
func parseCount(d *caddyfile.Dispenser) (int, error) {
	option := d.Val()
	var arg string
	if !d.AllArgs(&arg) {
		return 0, d.Errf("%s: want one number", option)
	}
	n, err := strconv.Atoi(arg)
	if err != nil {
		return 0, d.Errf("%s: invalid number %q", option, arg)
	}
	if n <= 0 {
		return 0, d.Errf("%s: must be greater than zero, got %d", option, n)
	}
	return n, nil
}

// parseMethods reads the methods block.
func parseMethods(d *caddyfile.Dispenser) (*MethodFilter, error) {
	if d.NextArg() {
		return nil, d.Err("methods: takes a block of allow and deny lines, not arguments")
	}
	f := new(MethodFilter)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		rule := d.Val()
		if rule == "identity" {
			if f.Identity != nil {
				return nil, d.Err("methods identity: specified twice")
			}
			id, err := parseIdentity(d)
			if err != nil {
				return nil, err
			}
			f.Identity = id
			continue
		}
		if err := parseRule(d, "methods", rule, &f.Allow, &f.Deny); err != nil {
			return nil, err
		}
	}
	if len(f.Allow) == 0 && len(f.Deny) == 0 && f.Identity == nil {
		return nil, d.Err("methods: empty block, want allow, deny or identity lines")
	}
	return f, nil
}

// parseRule reads the patterns of an allow or deny line into allow or
// deny; where names the block in errors.
func parseRule(d *caddyfile.Dispenser, where, rule string, allow, deny *[]string) error {
	patterns := d.RemainingArgs()
	if len(patterns) == 0 {
		return d.Errf("%s %s: want at least one pattern", where, rule)
	}
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return d.Errf("%s %s: bad pattern %q: %v", where, rule, p, err)
		}
	}
	switch rule {
	case "allow":
		*allow = append(*allow, patterns...)
	case "deny":
		*deny = append(*deny, patterns...)
	default:
		return d.Errf("%s: unrecognized rule %q (want allow or deny)", where, rule)
	}
	return nil
}

// parseIdentity reads the identity block of methods:
//
//	identity <placeholder> {
//	    <value> {
//	        allow <patterns...>
//	        deny  <patterns...>
//	    }
//	    <value> allow|deny <patterns...>
//	}
func parseIdentity(d *caddyfile.Dispenser) (*MethodIdentity, error) {
	var key string
	if !d.AllArgs(&key) {
		return nil, d.Err("methods identity: want one placeholder, such as {http.auth.user.id}, then a block")
	}
	id := &MethodIdentity{Key: expandShorthands(key), Rules: map[string]*MethodRules{}}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		value := d.Val()
		where := "methods identity " + strconv.Quote(value)
		r := id.Rules[value]
		if r == nil {
			r = new(MethodRules)
			id.Rules[value] = r
		}
		if d.NextArg() {
			if err := parseRule(d, where, d.Val(), &r.Allow, &r.Deny); err != nil {
				return nil, err
			}
		}
		for inner := d.Nesting(); d.NextBlock(inner); {
			if err := parseRule(d, where, d.Val(), &r.Allow, &r.Deny); err != nil {
				return nil, err
			}
		}
		if len(r.Allow) == 0 && len(r.Deny) == 0 {
			return nil, d.Errf("%s: want allow or deny patterns", where)
		}
	}
	if err := id.validate(); err != nil {
		return nil, d.Err(err.Error())
	}
	return id, nil
}

// givenOptions are the options a block has given so far, each of which
// may be given once.
type givenOptions map[string]bool

// once notes option and fails, naming it after where, when the block gave
// it before.
func (g givenOptions) once(d *caddyfile.Dispenser, where, option string) error {
	if g[option] {
		return d.Errf("%s%s: specified twice", where, option)
	}
	g[option] = true
	return nil
}

// parseOff reads the `off` of `<option> off`, and reports whether it was
// there: otherwise a block may follow.
func parseOff(d *caddyfile.Dispenser, option string) (off bool, err error) {
	if !d.NextArg() {
		return false, nil
	}
	if d.Val() != "off" || d.NextArg() {
		return false, d.Errf("%s: unexpected argument %q (want off, or a block)", option, d.Val())
	}
	if d.NextBlock(d.Nesting()) {
		return false, d.Errf("%s off: takes no block", option)
	}
	return true, nil
}

// parseWebSocket reads `websocket off` or the websocket block.
func parseWebSocket(d *caddyfile.Dispenser) (*WebSocketConfig, error) {
	c := new(WebSocketConfig)
	if off, err := parseOff(d, "websocket"); off || err != nil {
		c.Disabled = off
		return c, err
	}
	seen := givenOptions{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		if err := seen.once(d, "websocket ", option); err != nil {
			return nil, err
		}
		var err error
		switch option {
		case "origins":
			c.Origins = d.RemainingArgs()
			if len(c.Origins) == 0 {
				return nil, d.Err("websocket origins: want at least one host pattern")
			}
			for _, p := range c.Origins {
				if _, err := path.Match(p, ""); err != nil {
					return nil, d.Errf("websocket origins: bad pattern %q: %v", p, err)
				}
			}
		case "max_message":
			c.MaxMessage, err = parseSize(d)
		case "ping_interval":
			c.PingInterval, err = parseDuration(d)
		case "max_connections":
			c.MaxConnections, err = parseCount(d)
		case "max_in_flight":
			c.MaxInFlight, err = parseCount(d)
		case "send_queue":
			c.SendQueue, err = parseCount(d)
		case "max_subscriptions":
			c.MaxSubscriptions, err = parseCount(d)
		case "slow_consumer":
			var policy string
			if !d.AllArgs(&policy) {
				return nil, d.Err("websocket slow_consumer: want drop_oldest or disconnect")
			}
			if _, ok := slowConsumerPolicies[policy]; !ok {
				return nil, d.Errf("websocket slow_consumer: %q is not drop_oldest or disconnect", policy)
			}
			c.SlowConsumer = policy
		default:
			return nil, d.Errf("unrecognized websocket option %q", option)
		}
		if err != nil {
			return nil, d.Errf("websocket %v", err)
		}
	}
	return c, nil
}

// parseOpenRPC reads `openrpc off` or the openrpc block.
func parseOpenRPC(d *caddyfile.Dispenser) (*OpenRPCConfig, error) {
	c := new(OpenRPCConfig)
	if off, err := parseOff(d, "openrpc"); off || err != nil {
		c.Disabled = off
		return c, err
	}
	seen := givenOptions{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		if err := seen.once(d, "openrpc ", option); err != nil {
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

// parseDuration reads the positive duration argument of the current
// option (Caddy's forms: 30s, 1m, 1d).
func parseDuration(d *caddyfile.Dispenser) (caddy.Duration, error) {
	option := d.Val()
	var arg string
	if !d.AllArgs(&arg) {
		return 0, d.Errf("%s: want one duration, such as 30s", option)
	}
	dur, err := caddy.ParseDuration(arg)
	if err != nil {
		return 0, d.Errf("%s: invalid duration %q", option, arg)
	}
	if dur <= 0 {
		return 0, d.Errf("%s: must be greater than zero", option)
	}
	return caddy.Duration(dur), nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)
