// Package wsconn carries rpccore peers over WebSocket: one JSON-RPC
// document per message, with the messages written between two flushes sent
// in one network write. github.com/coder/websocket does the handshake, the
// reading and the control frames; the answers' text frames are written
// here. An idle connection holds one goroutine and, on plain TCP, no
// buffer. It knows nothing of Caddy; any net/http handler can use it.
package wsconn
