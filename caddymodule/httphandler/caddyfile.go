package httphandler

// caddyfile.go parses the jsonrpc directive of the Caddyfile.

import (
	"path"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/endpoint"
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
//	        shutdown_grace    <duration>
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
	seen := conf.GivenOptions{}
	for d.NextBlock(0) {
		option := d.Val()
		if option != "service" {
			if err := seen.Once(d, "", option); err != nil {
				return err
			}
		}
		handled, err := endpoint.ParseOption(d, option, endpoint.Fields{
			Services: &h.ServicesRaw, MaxRequest: &h.MaxRequestBody, MaxRequestName: "max_request_body",
			MaxBatch: &h.MaxBatch, MaxResponseBody: &h.MaxResponseBody, MaxDepth: &h.MaxDepth,
			Concurrency: &h.Concurrency, Methods: &h.Methods, RateLimit: &h.RateLimit, Hub: &h.HubRaw,
			OpenRPC: &h.OpenRPC,
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

// parseWebSocket reads `websocket off` or the websocket block.
func parseWebSocket(d *caddyfile.Dispenser) (*WebSocketConfig, error) {
	c := new(WebSocketConfig)
	if off, err := conf.ParseOff(d, "websocket"); off || err != nil {
		c.Disabled = off
		return c, err
	}
	seen := conf.GivenOptions{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		if err := seen.Once(d, "websocket ", option); err != nil {
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
			c.MaxMessage, err = conf.ParseSize(d)
		case "ping_interval":
			c.PingInterval, err = conf.ParseDuration(d)
		case "max_connections":
			c.MaxConnections, err = conf.ParseCount(d)
		case "max_in_flight":
			c.MaxInFlight, err = conf.ParseCount(d)
		case "send_queue":
			c.SendQueue, err = conf.ParseCount(d)
		case "max_subscriptions":
			c.MaxSubscriptions, err = conf.ParseCount(d)
		case "shutdown_grace":
			c.ShutdownGrace, err = conf.ParseDuration(d)
		case "slow_consumer":
			var policy string
			if !d.AllArgs(&policy) {
				return nil, d.Err("websocket slow_consumer: want drop_oldest or disconnect")
			}
			if _, ok := endpoint.SlowConsumerPolicies[policy]; !ok {
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

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)
