// Package snippet compiles the method of docs/websocket.md that calls its
// client.
package snippet

import (
	"context"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// snippet

var _ = rpccore.Func1(Work, "job").Blocking()
var _ context.Context
