package caddymodule

// filter.go decides which registered methods an endpoint exposes.

import (
	"fmt"
	"path"
)

// MethodFilter chooses the methods an endpoint exposes by name. Patterns use
// the syntax of Go's path.Match: `*` matches any run of characters other
// than `/`, `?` matches one such character, `[a-z]` matches a class. A
// method that is not exposed answers -32601 "Method not found", exactly as
// if no service registered it.
type MethodFilter struct {
	// Allow lists the patterns of the exposed methods. When empty, every
	// method is exposed unless Deny matches it.
	Allow []string `json:"allow,omitempty"`

	// Deny lists the patterns of methods never exposed, even when an
	// Allow pattern matches them.
	Deny []string `json:"deny,omitempty"`
}

// validate checks every pattern.
func (f *MethodFilter) validate() error {
	for _, list := range []struct {
		name     string
		patterns []string
	}{{"allow", f.Allow}, {"deny", f.Deny}} {
		for _, p := range list.patterns {
			if err := checkPattern(p); err != nil {
				return fmt.Errorf("methods %s: %w", list.name, err)
			}
		}
	}
	return nil
}

// checkPattern fails for a pattern path.Match cannot use.
func checkPattern(p string) error {
	if p == "" {
		return fmt.Errorf("empty pattern")
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("bad pattern %q: %w", p, err)
	}
	return nil
}

// allows reports whether the filter exposes the method name. The patterns
// have been validated.
func (f *MethodFilter) allows(name string) bool {
	for _, p := range f.Deny {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(f.Allow) == 0 {
		return true
	}
	for _, p := range f.Allow {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// unused returns the allow patterns that match none of the exposed methods:
// most likely typos.
func (f *MethodFilter) unused(exposed []string) []string {
	var out []string
	for _, p := range f.Allow {
		used := false
		for _, name := range exposed {
			if ok, _ := path.Match(p, name); ok {
				used = true
				break
			}
		}
		if !used {
			out = append(out, p)
		}
	}
	return out
}
