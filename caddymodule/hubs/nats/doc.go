// Package natshub is a subscription hub shared by several servers through
// NATS, and its Caddy module, jsonrpc.hubs.nats.
//
// Hub, made by New, implements rpccore.HistoryHub and knows nothing of
// Caddy: each process holds one NATS connection, one NATS subscription per
// topic that has local subscribers, and fans every message out to those
// subscribers itself, encoded once. Module is the Caddy glue: its
// configuration, Caddyfile syntax and a pool that shares one Hub among the
// handlers that configure it alike, across reloads.
//
// Without history, messages travel over core NATS on
// <prefix>.l.<topic>, at most once: notifications carry no position.
//
// With history, a publish is stored in the JetStream stream of the prefix
// (subjects <prefix>.h.>), which republishes every stored message on
// <prefix>.l.<topic> with its sequence. A notification's position is
// {"epoch": the stream's creation time, "offset": the message's sequence},
// so a resume reads the missed messages from the stream; a stream deleted
// and made again has another epoch, and resumes from it are answered
// "recovered": false. Each process notices messages it missed on core
// NATS (each republished message names the previous sequence of its
// topic) and reads them from the stream before the next one. The stream
// must hold every topic's messages in order: its only deletions are its
// oldest messages (max_msgs, max_age), so delete no single message from it.
// Batched reads need NATS server 2.11 or later.
//
// While NATS is unreachable, a publish reaches this process's subscribers
// at once and waits in a bounded queue (max_pending) to go to NATS, in
// order, once it is back; a publish finding the queue full is refused with
// an error and reaches no one. See Hub for what subscribers see then.
//
// Hub.ShareLimits carries the reports with which the handler's rate limit
// zones share their counts, over core NATS on <prefix>.rl.<zone>, at most
// once and never queued.
package natshub
