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
// oldest messages, and each topic's oldest (the bounds below), so delete
// no single message from it.
// Batched reads need NATS server 2.11 or later.
//
// A publish with history is sent to the stream without waiting for each
// acknowledgement (up to 256 at a time) and sent again, in order, until
// the stream has it. While NATS is lost for less than publish_timeout,
// publishes wait for it; while it is unreachable for longer, or was never
// reached, a publish reaches this process's subscribers at once and waits
// in a bounded queue (max_pending) to go to NATS, in order, once it is
// back; a publish finding the queue full is refused with an error and
// reaches no one. See Hub for what subscribers see then.
//
// The stream's bounds: max_msgs, max_age and max_bytes over every topic,
// and max_msgs_per_topic per topic (JetStream's per-subject limit, set
// one higher so that a resume knows whether it missed any); replicas
// copies of it on the servers of a JetStream cluster. The hub makes the
// stream, or updates it to the configuration, when it reaches NATS; NATS
// refusing that is a StreamRefusedError, which fails the hub's
// provisioning when NATS is reachable then.
//
// Hub.ShareLimits carries the reports with which the handler's rate limit
// zones share their counts, over core NATS on <prefix>.rl.<zone>: each
// publish waits for its server's confirmation, and tells the zone when
// the connection is made again, so that the zones send again what was not
// confirmed and ask for what they missed.
package natshub
