// Command caddy is Caddy with its standard modules and the JSON-RPC 2.0
// handler, for `go run ./cmd/caddy run --config Caddyfile.example`.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	// Caddy's standard modules.
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	// The jsonrpc handler and the demo service.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc"
)

func main() {
	caddycmd.Main()
}
