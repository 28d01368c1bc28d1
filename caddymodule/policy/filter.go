package policy

// filter.go decides which registered methods an endpoint exposes.

import (
	"fmt"
	"maps"
	"path"
	"slices"
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

	// Rules of their own for some callers, chosen by a placeholder's
	// value: for them, their rules stand instead of Allow and Deny.
	// Default: the same methods for every caller.
	Identity *MethodIdentity `json:"identity,omitempty"`
}

// validate checks every pattern.
func (f *MethodFilter) Validate() error {
	if err := checkPatterns(f.Allow, f.Deny); err != nil {
		return fmt.Errorf("methods %w", err)
	}
	if f.Identity != nil {
		return f.Identity.validate()
	}
	return nil
}

// checkPatterns checks allow and deny patterns, naming the bad one's list.
func checkPatterns(allow, deny []string) error {
	for _, list := range []struct {
		name     string
		patterns []string
	}{{"allow", allow}, {"deny", deny}} {
		for _, p := range list.patterns {
			if err := checkPattern(p); err != nil {
				return fmt.Errorf("%s: %w", list.name, err)
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

// allows reports whether the filter's Allow and Deny expose the method
// name. The patterns have been validated.
func (f *MethodFilter) Allows(name string) bool { return allowsName(f.Allow, f.Deny, name) }

// rules returns the filter's Allow and Deny.
func (f *MethodFilter) rules() MethodRules { return MethodRules{Allow: f.Allow, Deny: f.Deny} }

// allowsName reports whether allow and deny expose the method name: deny
// hides what it matches, and allow, when not empty, exposes only what it
// matches.
func allowsName(allow, deny []string, name string) bool {
	for _, p := range deny {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(allow) == 0 {
		return true
	}
	return matchesAny(allow, name)
}

// unused returns the allow patterns, an identity's included, that match
// none of the exposed methods: most likely typos.
func (f *MethodFilter) Unused(exposed []string) []string {
	patterns := f.Allow
	if f.Identity != nil {
		for _, v := range slices.Sorted(maps.Keys(f.Identity.Rules)) {
			patterns = append(slices.Clip(patterns), f.Identity.Rules[v].Allow...)
		}
	}
	var out []string
	for _, p := range patterns {
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
