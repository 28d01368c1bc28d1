package policy

// identity.go chooses the methods an endpoint exposes by who calls:
// allow and deny rules by the value of a placeholder, each compiled once
// into the set of registered methods it exposes.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/openrpc"
)

// MethodIdentity gives callers their own method rules, chosen by the value
// of a placeholder: the user that basic_auth or forward_auth
// authenticated (`{http.auth.user.id}`), a header, or a name that Caddy's
// `map` gives an API key. A caller whose value has rules gets those rules
// instead of the allow and deny of the methods block; any other caller
// (an unknown or empty value) gets the allow and deny of the methods
// block. A method hidden from a caller answers it -32601 "Method not
// found", exactly as an unknown method.
//
// The value is read once per HTTP request, and once per connection for
// WebSocket (from the upgrade request, so a connection keeps the identity
// it was opened with) and stream listeners (where only the connection's
// `{http.request.remote.*}` and Caddy's global placeholders are known).
type MethodIdentity struct {
	// The placeholder (or text with placeholders) whose value names the
	// caller, such as `{http.auth.user.id}`. Required.
	Key string `json:"key,omitempty"`

	// The rules of each value. Required: at least one value.
	Rules map[string]*MethodRules `json:"rules,omitempty"`
}

// MethodRules choose methods as the methods block does: with Allow
// patterns only matching methods are exposed, and Deny hides methods even
// when allowed.
type MethodRules struct {
	// The patterns of the exposed methods. When empty, every method is
	// exposed unless Deny matches it.
	Allow []string `json:"allow,omitempty"`

	// The patterns of methods never exposed to these callers.
	Deny []string `json:"deny,omitempty"`
}

// validate checks the key and every rule's patterns.
func (id *MethodIdentity) validate() error {
	if id.Key == "" {
		return fmt.Errorf("methods identity: key: required (a placeholder such as {http.auth.user.id})")
	}
	if len(id.Rules) == 0 {
		return fmt.Errorf("methods identity %s: no value has rules", id.Key)
	}
	for _, v := range slices.Sorted(maps.Keys(id.Rules)) {
		if v == "*" {
			return fmt.Errorf("methods identity %s %q: a value is matched exactly; callers without rules of their "+
				"own get the allow and deny of the methods block, so put theirs there", id.Key, v)
		}
		r := id.Rules[v]
		if r == nil || len(r.Allow) == 0 && len(r.Deny) == 0 {
			return fmt.Errorf("methods identity %s %q: want allow or deny patterns", id.Key, v)
		}
		if err := checkPatterns(r.Allow, r.Deny); err != nil {
			return fmt.Errorf("methods identity %s %q %w", id.Key, v, err)
		}
	}
	return nil
}

// allows reports whether the rules expose the method name.
func (r *MethodRules) allows(name string) bool { return allowsName(r.Allow, r.Deny, name) }

// identityMethods is a provisioned MethodIdentity: each value's rules,
// and the methods block's own for other values, compiled into sets of
// method indexes (policy.index).
type identityMethods struct {
	keyIdx int // which of the policy's keys names the caller
	sets   map[string]*methodSet
	others *methodSet
}

// newIdentityMethods provisions id; others are the methods block's rules.
func newIdentityMethods(id *MethodIdentity, others MethodRules, keyIdx int) *identityMethods {
	im := &identityMethods{keyIdx: keyIdx, sets: make(map[string]*methodSet, len(id.Rules)),
		others: &methodSet{rules: others}}
	for v, r := range id.Rules {
		im.sets[v] = &methodSet{rules: *r}
	}
	return im
}

// exposesAny reports whether some caller's rules expose name: the methods
// no caller may call are left out of the server altogether.
func (im *identityMethods) exposesAny(name string) bool {
	if im.others.rules.allows(name) {
		return true
	}
	for _, s := range im.sets {
		if s.rules.allows(name) {
			return true
		}
	}
	return false
}

// resolve compiles every set over the methods, by index.
func (im *identityMethods) resolve(methods []string) {
	im.others.resolve(methods)
	for _, s := range im.sets {
		s.resolve(methods)
	}
}

// setFor returns the set of the caller whose key is value.
func (im *identityMethods) setFor(value string) *methodSet {
	if s := im.sets[value]; s != nil {
		return s
	}
	return im.others
}

// methodSet is the methods one caller may call: a bit per method index.
type methodSet struct {
	rules MethodRules
	bits  []uint64
}

// resolve computes the bits.
func (s *methodSet) resolve(methods []string) {
	s.bits = make([]uint64, (len(methods)+63)/64)
	for i, m := range methods {
		if s.rules.allows(m) {
			s.bits[i/64] |= 1 << (i % 64)
		}
	}
}

// lists reports whether the discovery document of the set's callers lists
// the method name: every method they may call, and rpc.discover.
func (s *methodSet) lists(name string) bool {
	return name == openrpc.DiscoverMethod || s.rules.allows(name)
}

// has reports whether the set holds the method of index idx, or, for a
// method registered after provisioning (idx < 0), method.
func (s *methodSet) has(idx int32, method string) bool {
	if idx < 0 {
		return s.rules.allows(method)
	}
	return s.bits[idx/64]&(1<<(idx%64)) != 0
}
