package upstream

// caddyfile.go parses the service's block of the Caddyfile.

import (
	"math"
	"net/http"
	"path"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
)

// UnmarshalCaddyfile sets up the service from its Caddyfile tokens.
// Syntax:
//
//	service upstream [<urls...>] {
//	    to              <urls...>
//	    methods         <patterns...>
//	    strip_prefix    <prefix>
//	    idempotent      <patterns...>
//	    name            <name>
//	    select          first|round_robin
//	    timeout         <duration>
//	    max_response    <size>
//	    max_batch       <calls>
//	    health_interval <duration>|off
//	    health_method   <method>
//	    fail_duration   <duration>
//	    header          <field> <value>
//	    tls_ca          <pem files...>
//	    tls_server_name <name>
//	    tls_insecure_skip_verify
//	}
//
// URLs after the service's name add to `to`. to, methods, idempotent,
// header and tls_ca may be repeated, their values add up; the other
// options may be given once.
func (u *Upstream) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the service's name
	u.To = append(u.To, d.RemainingArgs()...)
	seen := make(map[string]bool)
	for d.NextBlock(0) {
		option := d.Val()
		switch option {
		case "to", "methods", "idempotent", "header", "tls_ca":
		default:
			if seen[option] {
				return d.Errf("upstream %s: specified twice", option)
			}
		}
		seen[option] = true
		if err := u.parseOption(d, option); err != nil {
			return err
		}
	}
	return nil
}

// parseOption parses one option of the block.
func (u *Upstream) parseOption(d *caddyfile.Dispenser, option string) error {
	var err error
	switch option {
	case "to":
		err = appendArgs(d, &u.To, "URL", false)
	case "methods":
		err = appendArgs(d, &u.Methods, "pattern", true)
	case "idempotent":
		err = appendArgs(d, &u.Idempotent, "pattern", true)
	case "tls_ca":
		err = appendArgs(d, &u.TLSCA, "PEM file", false)
	case "name":
		err = oneArg(d, &u.Name)
	case "health_method":
		err = oneArg(d, &u.HealthMethod)
	case "strip_prefix":
		err = oneArg(d, &u.StripPrefix)
	case "tls_server_name":
		err = oneArg(d, &u.TLSServerName)
	case "select":
		if err = oneArg(d, &u.Select); err == nil && u.Select != "first" && u.Select != "round_robin" {
			err = d.Errf("upstream select: %q is not first or round_robin", u.Select)
		}
	case "timeout":
		u.Timeout, err = parseDuration(d)
	case "fail_duration":
		u.FailDuration, err = parseDuration(d)
	case "health_interval":
		args := d.RemainingArgs()
		if len(args) == 1 && args[0] == "off" {
			u.HealthInterval = -1
			return nil
		}
		u.HealthInterval, err = durationOf(d, option, args)
	case "max_response":
		u.MaxResponse, err = parseSize(d)
	case "max_batch":
		u.MaxBatch, err = parseCount(d)
	case "header":
		var field, value string
		if !d.AllArgs(&field, &value) {
			return d.Err("upstream header: want a field name and a value")
		}
		if u.Header == nil {
			u.Header = map[string][]string{}
		}
		field = http.CanonicalHeaderKey(field)
		u.Header[field] = append(u.Header[field], value)
	case "tls_insecure_skip_verify":
		if d.NextArg() {
			return d.Err("upstream tls_insecure_skip_verify: takes no arguments")
		}
		u.TLSInsecureSkipVerify = true
	default:
		return d.Errf("unrecognized upstream option %q", option)
	}
	return err
}

// appendArgs appends the option's arguments (at least one) to list,
// checking them as path.Match patterns when patterns is set.
func appendArgs(d *caddyfile.Dispenser, list *[]string, what string, patterns bool) error {
	option := d.Val()
	args := d.RemainingArgs()
	if len(args) == 0 {
		return d.Errf("upstream %s: want at least one %s", option, what)
	}
	if patterns {
		for _, p := range args {
			if _, err := path.Match(p, ""); err != nil {
				return d.Errf("upstream %s: bad pattern %q: %v", option, p, err)
			}
		}
	}
	*list = append(*list, args...)
	return nil
}

// oneArg reads the option's one argument into dst.
func oneArg(d *caddyfile.Dispenser, dst *string) error {
	option := d.Val()
	if !d.AllArgs(dst) {
		return d.Errf("upstream %s: want one value", option)
	}
	return nil
}

// parseDuration reads the option's positive duration (30s, 1m).
func parseDuration(d *caddyfile.Dispenser) (caddy.Duration, error) {
	option := d.Val()
	return durationOf(d, option, d.RemainingArgs())
}

// durationOf reads the positive duration that option's arguments args
// hold.
func durationOf(d *caddyfile.Dispenser, option string, args []string) (caddy.Duration, error) {
	if len(args) != 1 {
		return 0, d.Errf("upstream %s: want one duration, such as 10s", option)
	}
	arg := args[0]
	dur, err := caddy.ParseDuration(arg)
	if err != nil {
		return 0, d.Errf("upstream %s: invalid duration %q", option, arg)
	}
	if dur <= 0 {
		return 0, d.Errf("upstream %s: must be greater than zero", option)
	}
	return caddy.Duration(dur), nil
}

// parseSize reads the option's positive size (512, 64KiB, 1MiB).
func parseSize(d *caddyfile.Dispenser) (int64, error) {
	option := d.Val()
	var arg string
	if !d.AllArgs(&arg) {
		return 0, d.Errf("upstream %s: want one size, such as 10MiB", option)
	}
	n, err := humanize.ParseBytes(arg)
	if err != nil {
		return 0, d.Errf("upstream %s: invalid size %q", option, arg)
	}
	if n == 0 || n > math.MaxInt {
		return 0, d.Errf("upstream %s: %s is out of range", option, arg)
	}
	return int64(n), nil
}

// parseCount reads the option's positive integer.
func parseCount(d *caddyfile.Dispenser) (int, error) {
	option := d.Val()
	var arg string
	if !d.AllArgs(&arg) {
		return 0, d.Errf("upstream %s: want one number", option)
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n <= 0 {
		return 0, d.Errf("upstream %s: want a number greater than zero, got %q", option, arg)
	}
	return n, nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Upstream)(nil)
