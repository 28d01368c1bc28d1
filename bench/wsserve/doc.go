// Package wsserve holds the WebSocket servers the harness measures outside
// Caddy, each run in a child process of its own so that its memory can be
// read from /proc and its file descriptors do not count against the load
// generator's: "ours" (rpccore with the demo service over package wsconn,
// the code the Caddy handler runs, used when bin/caddy does not answer the
// upgrade) and "geth" (go-ethereum's rpc.Server.WebsocketHandler with the
// five benchmark methods and a chat subscription in its own convention), and
// "fanout", the bare fan-out of the broadcast set: one pre-encoded
// notification written to every subscriber in turn, no JSON-RPC server,
// and "fanout_parallel", the same writes over package wsconn shared
// between one goroutine per processor.
//
// The child is the harness binary itself, run as `run serve-ws <impl>`: it
// listens on a free loopback port, prints its ws:// URL on stdout, and
// serves until it is sent SIGTERM.
package wsserve
