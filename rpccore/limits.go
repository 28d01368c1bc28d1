package rpccore

// limits.go holds the default of every limit, for the server, its peer
// connections and the transports that carry them: the Caddy handler, the
// WebSocket and stream transports and the client read them from here.

import "time"

// Defaults of the processor's limits, used when no Option changes them.
const (
	DefaultMaxRequestBytes  = 5 << 20  // bytes of a request document (5 MiB)
	DefaultMaxBatch         = 1000     // items of a batch
	DefaultMaxResponseBytes = 25 << 20 // bytes of a response document (25 MiB)
	DefaultMaxDepth         = 128      // levels of nesting
	DefaultBatchConcurrency = 16       // Blocking calls at once within one batch
)

// Defaults of a peer connection's limits (PeerConfig).
const (
	DefaultMaxInFlight      = 64               // documents calling Blocking methods at once
	DefaultSendQueue        = 1024             // messages waiting to be written
	DefaultMaxSubscriptions = 1024             // subscriptions open at once
	DefaultCallTimeout      = 30 * time.Second // calls to the client without a deadline
	DefaultShutdownGrace    = 5 * time.Second  // running calls on shutdown
)

// Defaults of the transports that carry peer connections.
const (
	DefaultWriteTimeout   = 10 * time.Second // one flush of written messages
	DefaultPingInterval   = 30 * time.Second // keep-alive checks of a client
	DefaultMaxConnections = 10000            // connections open at once per endpoint
)

// orDefault returns n, or def when n is not positive.
func orDefault[T int | int64 | time.Duration](n, def T) T {
	if n > 0 {
		return n
	}
	return def
}
