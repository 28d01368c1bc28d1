package policy

// ratelimit_caddyfile.go parses the rate_limit block of the jsonrpc
// directive and of stream listeners.

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
)

// ParseRateLimit reads the rate_limit block:
//
//	rate_limit {
//	    sync_interval <duration>
//	    zone <name> {
//	        key      <placeholder text>
//	        events   <events>
//	        window   <duration>
//	        methods  <patterns...>
//	        cost     <pattern> <events>
//	        max_keys <keys>
//	        local
//	    }
//	}
//
// zone may be repeated, each name once; methods and cost may be repeated
// (the patterns add up, and the first cost whose pattern matches applies).
// sync_interval and local matter only with the NATS hub.
func ParseRateLimit(d *caddyfile.Dispenser) (*RateLimit, error) {
	if d.NextArg() {
		return nil, d.Err("rate_limit: takes a block of zones, not arguments")
	}
	rl := &RateLimit{Zones: map[string]*RateLimitZone{}}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		if d.Val() == "sync_interval" {
			if rl.SyncInterval != 0 {
				return nil, d.Err("rate_limit sync_interval: specified twice")
			}
			var err error
			if rl.SyncInterval, err = conf.ParseDuration(d); err != nil {
				return nil, d.Errf("rate_limit %v", err)
			}
			if time.Duration(rl.SyncInterval) < MinRateLimitSyncInterval {
				return nil, d.Errf("rate_limit sync_interval: must be at least %s", MinRateLimitSyncInterval)
			}
			continue
		}
		if d.Val() != "zone" {
			return nil, d.Errf("rate_limit: unrecognized option %q (want zone or sync_interval)", d.Val())
		}
		var name string
		if !d.AllArgs(&name) {
			return nil, d.Err("rate_limit zone: want one name, then a block")
		}
		if rl.Zones[name] != nil {
			return nil, d.Errf("rate_limit zone %s: specified twice", name)
		}
		z, err := parseZone(d, name)
		if err != nil {
			return nil, err
		}
		rl.Zones[name] = z
	}
	if len(rl.Zones) == 0 {
		return nil, d.Err("rate_limit: empty block, want zone blocks")
	}
	return rl, nil
}

// parseZone reads the block of the zone name.
func parseZone(d *caddyfile.Dispenser, name string) (*RateLimitZone, error) {
	z := new(RateLimitZone)
	seen := conf.GivenOptions{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		if option != "methods" && option != "cost" {
			if err := seen.Once(d, "rate_limit zone "+name+" ", option); err != nil {
				return nil, err
			}
		}
		var err error
		switch option {
		case "key":
			var key string
			if !d.AllArgs(&key) {
				return nil, d.Errf("rate_limit zone %s key: want one placeholder, such as {remote_host}", name)
			}
			z.Key = expandShorthands(key)
		case "events":
			var n int
			n, err = conf.ParseCount(d)
			z.Events = int64(n)
		case "window":
			z.Window, err = conf.ParseDuration(d)
		case "max_keys":
			z.MaxKeys, err = conf.ParseCount(d)
		case "local":
			if d.NextArg() {
				return nil, d.Errf("rate_limit zone %s local: takes no arguments", name)
			}
			z.Local = true
		case "methods":
			patterns := d.RemainingArgs()
			if len(patterns) == 0 {
				return nil, d.Errf("rate_limit zone %s methods: want at least one pattern", name)
			}
			z.Methods = append(z.Methods, patterns...)
		case "cost":
			var pattern, n string
			if !d.AllArgs(&pattern, &n) {
				return nil, d.Errf("rate_limit zone %s cost: want a method pattern and a number of events", name)
			}
			cost, convErr := strconv.ParseInt(n, 10, 64)
			if convErr != nil {
				return nil, d.Errf("rate_limit zone %s cost %s: invalid number %q", name, pattern, n)
			}
			z.Costs = append(z.Costs, RateLimitCost{Method: pattern, Cost: cost})
		default:
			return nil, d.Errf("rate_limit zone %s: unrecognized option %q", name, option)
		}
		if err != nil {
			return nil, d.Errf("rate_limit zone %s %v", name, err)
		}
	}
	if err := z.check(); err != nil {
		return nil, d.Errf("rate_limit zone %s: %v", name, err)
	}
	return z, nil
}

// expandShorthands turns the Caddyfile's placeholder shorthands
// ({remote_host}, {header.X-Api-Key}) into the placeholders they stand
// for: site blocks have them expanded already, global options not.
func expandShorthands(text string) string {
	seg := caddyfile.Segment{{Text: text}}
	httpcaddyfile.NewShorthandReplacer().ApplyToSegment(&seg)
	return seg[0].Text
}
