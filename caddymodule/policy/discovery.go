package policy

import (
	"context"
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/openrpc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// RegisterDiscovery registers rpc.discover on s, after the services'
// methods, which the document describes under info. Under methods per
// identity, each caller is answered the document of its own methods, each
// set's generated the first time one of its callers asks; otherwise (p nil
// included) every caller gets the one document.
func (p *Policy) RegisterDiscovery(s *rpccore.Server, info openrpc.Info) error {
	if p == nil || p.identity == nil {
		if err := openrpc.Register(s, info); err != nil {
			return fmt.Errorf("openrpc: %w", err)
		}
		return nil
	}
	docs := openrpc.NewDocuments(s, info)
	if _, err := docs.Get(p.identity.others, p.identity.others.lists); err != nil {
		return fmt.Errorf("openrpc: %w", err) // a method that cannot be described fails the configuration
	}
	return s.RegisterExtension(openrpc.DiscoverMethod, rpccore.Func0(func(ctx context.Context) (rpccore.RawJSON, error) {
		set := p.identity.others
		if c, _ := ctx.Value(callerKey{}).(*Caller); c != nil && c.methods != nil {
			set = c.methods
		}
		doc, err := docs.Get(set, set.lists)
		return rpccore.RawJSON(doc), err
	}))
}

// Exposes reports whether any caller may call the method name: the
// methods no caller may call are not served at all.
func (p *Policy) Exposes(name string) bool { return p.identity.exposesAny(name) }
