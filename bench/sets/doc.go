// Package sets runs the measurements of the harness, each set a table of
// cells by series in the shape of package schema: in process (the five
// peers on the five requests), HTTPS (jsonrpc in Caddy against Caddy's
// static respond), WebSocket (pipelined calls, broadcast, idle memory, ours
// against go-ethereum), streams over TCP and unix sockets (pipelined calls,
// a method that waits, gRPC-Go, one subscription's items per second, idle
// memory, ours against go-ethereum's IPC server, gRPC-Go and a bare server
// with no JSON-RPC), Go clients (rpcclient against go-ethereum's client,
// calling the same server over WebSocket), nodes (a broadcast over two
// Caddy nodes joined by the NATS hub, against one node with the local
// hub), and the browser set written by another tool.
//
// Every set runs its cells under a Profile (full or quick), reports each
// step to a progress bar, and puts ours next to its peers with the ratio.
package sets
