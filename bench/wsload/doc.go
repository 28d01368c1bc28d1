// Package wsload is the WebSocket side of the load generator: a lean client
// (github.com/gobwas/ws for the handshake and the frame headers, as the
// server uses it; masked text frames out, pings answered, nothing else) so
// that the client's own cost stays small next to the server's, and the
// three measurements built on it: pipelined calls with a fixed number in
// flight per connection, broadcast to many subscribers, and idle
// connections held open.
//
// Like package load it only ever connects to loopback: Dial refuses a URL
// whose host is not a loopback IP or "localhost", and every dial is checked
// again after name resolution.
package wsload
