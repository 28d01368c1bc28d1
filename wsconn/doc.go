// Package wsconn carries rpccore peers over WebSocket (github.com/coder/websocket):
// one JSON-RPC document per message, with the messages written between two
// flushes sent in one network write. It knows nothing of Caddy; any
// net/http handler can use it.
package wsconn
