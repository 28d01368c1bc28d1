package wsserve

// ours.go serves rpccore with the demo service over wsconn.

import (
	"context"
	"net/http"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// oursHandler upgrades every request and serves the demo service on it,
// with wsconn's and rpccore's default options, until ctx ends.
func oursHandler(ctx context.Context) (http.Handler, error) {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wsconn.Serve(ctx, w, r, s, wsconn.Options{}, rpccore.PeerConfig{})
	}), nil
}
