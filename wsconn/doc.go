// Package wsconn carries rpccore peers over WebSocket (RFC 6455): one
// JSON-RPC document per message, with the messages written between two
// flushes sent in one network write. github.com/gobwas/ws, a frame-level
// library, makes the handshake's answer and encodes and decodes every
// frame header;
// wsconn decides what the frames mean: messages out of fragments, pings
// answered, the closing handshake, and the status a connection fails with
// (1002 for a broken frame or close frame, 1007 for a text message or a
// close reason that is not UTF-8, 1009 for a message over the limit). An
// idle connection holds one goroutine and, on plain TCP, no buffer. It
// knows nothing of Caddy; any net/http handler can use it.
package wsconn
