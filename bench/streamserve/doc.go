// Package streamserve holds the servers the stream sets measure beside
// bin/caddy, each run in a child process of its own as package wsserve's
// are: "geth" (go-ethereum's rpc.Server.ServeListener on a unix socket, its
// IPC server, with the five benchmark methods and a method that sleeps),
// "grpc" (gRPC-Go serving package grpcpeer's service over TCP), and "bare",
// the floor of the stream sets: a TCP server with no JSON-RPC at all that
// answers each request line with a pre-encoded answer chosen by its id, and
// answers a subscribe with pre-encoded notifications written as fast as the
// connection takes them.
//
// The child is the harness binary itself, run as `run serve-stream <impl>`:
// it listens, prints "<network> <address>" on stdout, and serves until it
// is sent SIGTERM.
package streamserve
