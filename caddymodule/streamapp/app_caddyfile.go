package streamapp

// app_caddyfile.go parses the jsonrpc global option of the Caddyfile into
// the jsonrpc app.

import (
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/endpoint"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("jsonrpc", parseGlobalOption)
}

// parseGlobalOption makes the jsonrpc app of the global option.
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	var app App
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "jsonrpc", Value: caddyconfig.JSON(app, nil)}, nil
}

// UnmarshalCaddyfile sets up the app from the global option's tokens.
// Syntax:
//
//	jsonrpc {
//	    shutdown_grace <duration>
//	    listen <addresses...> {
//	        service <name> [{ <the service's own options> }]
//	        max_message       <size>
//	        max_batch         <items>
//	        max_response_body <size>
//	        max_depth         <levels>
//	        concurrency       <calls>
//	        methods {
//	            allow <patterns...>
//	            deny  <patterns...>
//	            identity <placeholder> { <value> { allow|deny <patterns...> } }
//	        }
//	        rate_limit {
//	            sync_interval <duration>
//	            zone <name> { key, events, window, methods, cost, max_keys, local }
//	        }
//	        openrpc off
//	        openrpc {
//	            title       <text>
//	            version     <text>
//	            description <text>
//	        }
//	        framing           values|content_length
//	        tls internal|<cert_file> <key_file>
//	        tls {
//	            issuer internal|acme
//	            names  <names...>
//	        }
//	        max_connections   <connections>
//	        idle_timeout      <duration>
//	        max_in_flight     <documents>
//	        send_queue        <messages>
//	        slow_consumer     drop_oldest|disconnect
//	        max_subscriptions <subscriptions>
//	    }
//	}
//
// listen may be repeated, one block per listener; one listen may name
// several addresses.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the option's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "listen":
			l, err := parseListener(d)
			if err != nil {
				return err
			}
			a.Listeners = append(a.Listeners, l)
		case "shutdown_grace":
			if a.ShutdownGrace != 0 {
				return d.Err("shutdown_grace: specified twice")
			}
			grace, err := conf.ParseDuration(d)
			if err != nil {
				return err
			}
			a.ShutdownGrace = grace
		default:
			return d.Errf("unrecognized jsonrpc global option %q (want listen or shutdown_grace)", d.Val())
		}
	}
	return nil
}

// parseListener reads one listen line and its block.
func parseListener(d *caddyfile.Dispenser) (*StreamListener, error) {
	l := &StreamListener{Listen: d.RemainingArgs()}
	if len(l.Listen) == 0 {
		return nil, d.Err("listen: want at least one address, such as tcp/127.0.0.1:9000")
	}
	seen := conf.GivenOptions{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		if option != "service" {
			if err := seen.Once(d, "listen "+l.name()+": ", option); err != nil {
				return nil, err
			}
		}
		handled, err := endpoint.ParseOption(d, option, endpoint.Fields{
			Services: &l.ServicesRaw, MaxRequest: &l.MaxMessage, MaxRequestName: "max_message",
			MaxBatch: &l.MaxBatch, MaxResponseBody: &l.MaxResponseBody, MaxDepth: &l.MaxDepth,
			Concurrency: &l.Concurrency, Methods: &l.Methods, RateLimit: &l.RateLimit, Hub: &l.HubRaw,
			OpenRPC: &l.OpenRPC,
		})
		switch {
		case handled:
		case option == "framing":
			if !d.AllArgs(&l.Framing) {
				return nil, d.Err("framing: want values or content_length")
			}
		case option == "tls":
			l.TLS, err = parseStreamTLS(d)
		case option == "max_connections":
			l.MaxConnections, err = conf.ParseCount(d)
		case option == "idle_timeout":
			l.IdleTimeout, err = conf.ParseDuration(d)
		case option == "max_in_flight":
			l.MaxInFlight, err = conf.ParseCount(d)
		case option == "send_queue":
			l.SendQueue, err = conf.ParseCount(d)
		case option == "max_subscriptions":
			l.MaxSubscriptions, err = conf.ParseCount(d)
		case option == "slow_consumer":
			if !d.AllArgs(&l.SlowConsumer) {
				return nil, d.Err("slow_consumer: want drop_oldest or disconnect")
			}
		default:
			return nil, d.Errf("unrecognized listen option %q", option)
		}
		if err != nil {
			return nil, err
		}
	}
	return l, l.check()
}

// parseStreamTLS reads `tls internal`, `tls <cert_file> <key_file>`, or a
// tls block.
func parseStreamTLS(d *caddyfile.Dispenser) (*StreamTLS, error) {
	t := new(StreamTLS)
	switch args := d.RemainingArgs(); len(args) {
	case 0:
	case 1:
		if args[0] != "internal" {
			return nil, d.Errf("tls: %q is not internal (or give a certificate file and its key file)", args[0])
		}
		t.Issuer = "internal"
	case 2:
		t.CertFile, t.KeyFile = args[0], args[1]
	default:
		return nil, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "issuer":
			if !d.AllArgs(&t.Issuer) {
				return nil, d.Err("tls issuer: want internal or acme")
			}
		case "names":
			if t.Names = d.RemainingArgs(); len(t.Names) == 0 {
				return nil, d.Err("tls names: want at least one name")
			}
		default:
			return nil, d.Errf("unrecognized tls option %q", d.Val())
		}
	}
	return t, t.check()
}

// Interface guards
var _ caddyfile.Unmarshaler = (*App)(nil)
