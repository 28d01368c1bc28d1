package conf

import (
	"math"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
)

// ParseSize reads the size argument of the current option.
func ParseSize(d *caddyfile.Dispenser) (int64, error) {
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

// ParseCount reads the positive integer argument of the current option.
func ParseCount(d *caddyfile.Dispenser) (int, error) {
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

// GivenOptions are the options a block has given so far, each of which
// may be given once.
type GivenOptions map[string]bool

// Once notes option and fails, naming it after where, when the block gave
// it before.
func (g GivenOptions) Once(d *caddyfile.Dispenser, where, option string) error {
	if g[option] {
		return d.Errf("%s%s: specified twice", where, option)
	}
	g[option] = true
	return nil
}

// ParseOff reads the `off` of `<option> off`, and reports whether it was
// there: otherwise a block may follow.
func ParseOff(d *caddyfile.Dispenser, option string) (off bool, err error) {
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

// ParseDuration reads the positive duration argument of the current
// option (Caddy's forms: 30s, 1m, 1d).
func ParseDuration(d *caddyfile.Dispenser) (caddy.Duration, error) {
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
