package caddymodule

// limits.go checks the numeric options of the handler and its WebSocket
// endpoint in one place: none may be negative, and counts and sizes must
// fit an int.

import (
	"fmt"
	"math"
)

// option is one numeric option, named as the configuration names it.
type option struct {
	name     string
	value    int64
	duration bool // a caddy.Duration in nanoseconds: it need not fit an int
}

// checkOptions fails for the first option whose value cannot work, naming
// it. Zero means the default and is always fine.
func checkOptions(options ...option) error {
	for _, o := range options {
		if o.value < 0 {
			return fmt.Errorf("%s: must not be negative, got %d", o.name, o.value)
		}
		if !o.duration && o.value > math.MaxInt {
			return fmt.Errorf("%s: %d is too large", o.name, o.value)
		}
	}
	return nil
}
