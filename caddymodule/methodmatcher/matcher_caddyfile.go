package methodmatcher

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
)

// UnmarshalCaddyfile sets up the matcher from Caddyfile tokens:
//
//	jsonrpc_method <patterns...>
//	jsonrpc_method <patterns...> {
//	    max_body <size>
//	}
//
// Several jsonrpc_method lines in one named matcher add their patterns up.
func (m *MatchMethod) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	for d.Next() {
		m.Methods = append(m.Methods, d.RemainingArgs()...)
		for d.NextBlock(0) {
			switch d.Val() {
			case "max_body":
				size, err := conf.ParseSize(d)
				if err != nil {
					return err
				}
				m.MaxBody = size
			default:
				return d.Errf("unrecognized jsonrpc_method option %q", d.Val())
			}
		}
	}
	if len(m.Methods) == 0 {
		return d.Err("jsonrpc_method: want at least one method pattern")
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*MatchMethod)(nil)
