// Package streamload is the raw-stream side of the load generator: JSON-RPC
// over a TCP or unix-socket connection, requests written back to back each
// followed by a newline, answers read line by line (ours ends every answer
// with "\n", and go-ethereum's IPC codec does too). Dialer hands Conn to
// package pipeline, which drives the pipelined calls and opens the idle
// connections; Flood measures the items per second of one subscription.
// Every answer and every notification is checked.
//
// Like package load it only ever connects to this machine: a TCP address
// must be a loopback IP or "localhost", and every dial is checked again
// after name resolution.
package streamload
