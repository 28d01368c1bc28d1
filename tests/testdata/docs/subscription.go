// Package snippet compiles the subscription source of docs/websocket.md.
package snippet

import (
	"context"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func register(s *rpccore.Server) error {
	// snippet
	return err
}

var _ = register
var _ context.Context
