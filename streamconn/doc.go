// Package streamconn carries rpccore peers over byte streams: TCP, unix
// sockets, TLS, any net.Conn. Two framings are supported:
//
//   - Values (the default): JSON values back to back, as go-ethereum's IPC
//     reads them. Whitespace between values is optional; one value may
//     span many reads and many may arrive in one. Each answer is written
//     followed by "\n".
//   - ContentLength: each message is preceded by a "Content-Length: N"
//     header and an empty line, as the Language Server Protocol and
//     StreamJsonRpc frame them ("Content-Type" is accepted and ignored).
//
// What happens to bad input:
//
//   - A value that is framed but not valid JSON (a typo inside an object,
//     a bare word) is answered -32700 by the processor; the connection
//     goes on.
//   - Bytes that cannot start a JSON value (a stray '}' or ',') or a broken
//     Content-Length header leave no way to find where the next message
//     starts: the connection is answered one -32700 error and closed.
//   - A message over MaxMessage is answered one -32600 error, without the
//     rest of it being read, and the connection is closed.
//
// A client that closes its sending side (end of input) still receives the
// answers to everything it sent before the connection closes. An idle
// connection holds one goroutine and, on plain TCP and unix sockets, no
// buffer. It knows nothing of Caddy.
package streamconn
