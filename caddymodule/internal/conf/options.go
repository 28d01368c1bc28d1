package conf

import (
	"fmt"
	"math"
)

// Option is one numeric option, named as the configuration names it.
type Option struct {
	Name     string
	Value    int64
	Duration bool // a caddy.Duration in nanoseconds: it need not fit an int
}

// CheckOptions fails for the first option whose value cannot work, naming
// it. Zero means the default and is always fine.
func CheckOptions(options ...Option) error {
	for _, o := range options {
		if o.Value < 0 {
			return fmt.Errorf("%s: must not be negative, got %d", o.Name, o.Value)
		}
		if !o.Duration && o.Value > math.MaxInt {
			return fmt.Errorf("%s: %d is too large", o.Name, o.Value)
		}
	}
	return nil
}
