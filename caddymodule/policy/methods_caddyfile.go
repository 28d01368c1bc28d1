package policy

// methods_caddyfile.go parses the methods block of the jsonrpc directive
// and of a stream listener.

import (
	"path"
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// ParseMethods reads the methods block.
func ParseMethods(d *caddyfile.Dispenser) (*MethodFilter, error) {
	if d.NextArg() {
		return nil, d.Err("methods: takes a block of allow and deny lines, not arguments")
	}
	f := new(MethodFilter)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		rule := d.Val()
		if rule == "identity" {
			if f.Identity != nil {
				return nil, d.Err("methods identity: specified twice")
			}
			id, err := parseIdentity(d)
			if err != nil {
				return nil, err
			}
			f.Identity = id
			continue
		}
		if err := parseRule(d, "methods", rule, &f.Allow, &f.Deny); err != nil {
			return nil, err
		}
	}
	if len(f.Allow) == 0 && len(f.Deny) == 0 && f.Identity == nil {
		return nil, d.Err("methods: empty block, want allow, deny or identity lines")
	}
	return f, nil
}

// parseRule reads the patterns of an allow or deny line into allow or
// deny; where names the block in errors.
func parseRule(d *caddyfile.Dispenser, where, rule string, allow, deny *[]string) error {
	patterns := d.RemainingArgs()
	if len(patterns) == 0 {
		return d.Errf("%s %s: want at least one pattern", where, rule)
	}
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return d.Errf("%s %s: bad pattern %q: %v", where, rule, p, err)
		}
	}
	switch rule {
	case "allow":
		*allow = append(*allow, patterns...)
	case "deny":
		*deny = append(*deny, patterns...)
	default:
		return d.Errf("%s: unrecognized rule %q (want allow or deny)", where, rule)
	}
	return nil
}

// parseIdentity reads the identity block of methods:
//
//	identity <placeholder> {
//	    <value> {
//	        allow <patterns...>
//	        deny  <patterns...>
//	    }
//	    <value> allow|deny <patterns...>
//	}
func parseIdentity(d *caddyfile.Dispenser) (*MethodIdentity, error) {
	var key string
	if !d.AllArgs(&key) {
		return nil, d.Err("methods identity: want one placeholder, such as {http.auth.user.id}, then a block")
	}
	id := &MethodIdentity{Key: expandShorthands(key), Rules: map[string]*MethodRules{}}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		value := d.Val()
		where := "methods identity " + strconv.Quote(value)
		r := id.Rules[value]
		if r == nil {
			r = new(MethodRules)
			id.Rules[value] = r
		}
		if d.NextArg() {
			if err := parseRule(d, where, d.Val(), &r.Allow, &r.Deny); err != nil {
				return nil, err
			}
		}
		for inner := d.Nesting(); d.NextBlock(inner); {
			if err := parseRule(d, where, d.Val(), &r.Allow, &r.Deny); err != nil {
				return nil, err
			}
		}
		if len(r.Allow) == 0 && len(r.Deny) == 0 {
			return nil, d.Errf("%s: want allow or deny patterns", where)
		}
	}
	if err := id.validate(); err != nil {
		return nil, d.Err(err.Error())
	}
	return id, nil
}
