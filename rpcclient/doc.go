// Package rpcclient is a JSON-RPC 2.0 client for Go programs: it calls this
// module's server, and any JSON-RPC 2.0 server, over HTTP(S), WebSocket and
// raw streams (TCP, TLS over TCP, unix sockets).
//
// Its API is go-ethereum's rpc.Client where that has one (Dial, Call,
// BatchCall, Notify, Subscribe, Close), so that moving over is an import
// change, plus named params ([Named], [ByName]), a typed helper ([CallT])
// and errors as *rpccore.Error.
//
// # Connections
//
// Over WebSocket and streams the client holds one connection. Calls made
// while a write is under way leave together in the next network write.
// When the connection is lost, the client redials it with exponential
// backoff and jitter (by default from 100 ms, doubling up to 10 s; see
// [WithBackoff]) and:
//
//   - a call not yet written waits, until its context ends, and is sent on
//     the next connection ([WithFailFast] makes it fail at once with
//     [ErrDisconnected] instead);
//   - a call written but not answered fails with an error that
//     errors.Is [ErrOutcomeUnknown]: the server may or may not have run it;
//     unless it is idempotent ([Idempotent], [WithIdempotentMethods]), in
//     which case it is sent again on the next connection (at most
//     [DefaultMaxResends] times);
//   - every live subscription is made again on the new connection with the
//     same arguments. Where the server gives each notification a position
//     in its topic's history (this module's server, for a subscription
//     that follows a hub topic with history), the client asks to resume
//     from the last one it received; when the server recovers, the
//     notifications missed meanwhile arrive first, in order, none twice
//     (one whose position is not after the last one's is dropped), then
//     the live ones, and nothing else shows. Otherwise (no position, the
//     history no longer holds them, go-ethereum's server) its
//     [ClientSubscription.Gap] channel receives a value: notifications
//     sent while it was down may have been lost. So code that reads Gap
//     hears of it only when something may be missing. [WithResubscribe]
//     may change the arguments; the resume is still added.
//
// [WithStateFunc] reports the client's [State]: connected, reconnecting,
// closed.
//
// Over HTTP each call is a POST; [WithHTTPBatchWindow] gathers the calls
// made within a short window into one batch POST. HTTP has no server push:
// Subscribe fails with [ErrNotificationsUnsupported].
//
// # Both directions
//
// The server may call the client and notify it ([rpccore.Peer.Call] and
// [rpccore.Peer.Notify] on this module's server). [WithMethods] registers
// the client's handlers as rpccore methods; calls without one are answered
// -32601. Notifications run in the order they arrive, on the goroutine that
// reads the connection, so a handler of a notification must not wait for
// the server; calls from the server run on goroutines of their own.
//
// # Bad input
//
// An answer that is not valid JSON text (invalid UTF-8 included), is not a
// JSON-RPC answer, carries an id the client never sent, or is over the
// client's size limit ([WithMaxMessage]) means the connection can no longer
// be trusted: it is dropped and redialled, and the calls it carried end as
// above, with the reason in their error.
package rpcclient
