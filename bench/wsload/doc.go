// Package wsload is the WebSocket side of the load generator: the client
// connection is package wsconn's client side (wsconn.Dial:
// github.com/gobwas/ws's handshake and frame headers, as the server uses
// them; masked text frames out, whole messages in, pings answered), with
// pre-encoded requests and answers checked byte-wise, so that the client's
// own cost stays small next to the server's; Reader, the cheapest reader of
// a stream of notifications, serves the flood. Built on them: a session of
// many subscribers and their publishers, which times a broadcast, and
// delivery to many subscribers spread over several servers (the time of one
// message and the rate of a sustained stream, read through Reader). Dialer
// hands Conn to package pipeline, which drives the pipelined calls and opens
// the idle connections.
//
// Like package load it only ever connects to loopback: Dial refuses a URL
// whose host is not a loopback IP or "localhost", and every dial is checked
// again after name resolution.
package wsload
