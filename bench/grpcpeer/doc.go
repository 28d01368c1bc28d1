// Package grpcpeer is gRPC-Go as a peer of the stream sets: the five
// benchmark calls as a hand-written grpc.ServiceDesc (no protoc), unary
// methods and one bidirectional stream that carries calls and answers, with
// a small codec of its own, and the load that drives them with a fixed
// number of calls in flight per connection.
//
// The messages are the calls' values in binary (little-endian numbers, raw
// string bytes), the cheapest encoding gRPC could be given: what it costs
// is its transport (HTTP/2 framing, flow control, per-call streams), not a
// text format.
package grpcpeer
