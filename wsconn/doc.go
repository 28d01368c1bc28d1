// Package wsconn carries rpccore peers over WebSocket (RFC 6455), on
// either side of the connection: Accept (and Serve) upgrade a server's
// request, Dial opens a client's connection, and both give the same Conn,
// which differs by side only in the masking of frames (a client masks
// every frame it writes with a fresh key and refuses masked frames; a
// server the reverse). One JSON-RPC document travels per message, with the
// messages written between two flushes sent in one network write.
// github.com/gobwas/ws, a frame-level library, makes both sides of the
// handshake and encodes and decodes every frame header; wsconn decides what
// the frames mean: messages out of fragments, pings answered, the closing
// handshake, and the status a connection fails with (1002 for a broken
// frame or close frame, 1007 for a text message or a close reason that is
// not UTF-8, 1009 for a message over the limit). An idle connection holds
// one goroutine and, on plain TCP, no buffer. It knows nothing of Caddy;
// any net/http handler can use it.
package wsconn
