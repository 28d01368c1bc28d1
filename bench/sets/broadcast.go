package sets

import (
	"context"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

func broadcastX(n int) string { return Count(n, "subscriber", "subscribers") }

// broadcastShares is how the broadcast set publishes the profile's
// messages: its rounds, and each session's warm-up and timed messages
// (the timed ones split between the rounds).
func broadcastShares(p Profile) (rounds, warmup, runs int) {
	rounds = max(1, p.BroadcastRounds)
	return rounds, max(1, p.BroadcastWarmup), max(1, (p.BroadcastRuns+rounds-1)/rounds)
}

// Broadcast subscribes n connections to the chat for every n of the
// profile, then publishes messages one at a time and times each until the
// last subscriber has it, the series taking turns round by round
// (broadcastShares); the set's note says what each series is.
func (ws *WebSocket) Broadcast(ctx context.Context, e *Env) schema.Set {
	s := schema.Set{
		ID: "ws_broadcast", Group: "websocket", Status: schema.Measured,
		Title:   "WebSocket: broadcast, ms from publish until the last subscriber has the message",
		Harness: ws.harness,
		Note: "one connection per subscriber and one more that publishes; the clock starts before the publish call " +
			"is written and stops when the last subscriber has read its notification; each timed message is a run. " +
			"The series take turns: each round opens a session of every series in turn on fresh connections, " +
			"publishes its warm-up and then its share of the timed messages, and closes it; the order turns by one " +
			"series each round, so that every series meets the same phases of a shared machine. " +
			"The bare fan-out is a server with no JSON-RPC at all that writes one pre-encoded notification to each " +
			"connection in turn from the publisher's goroutine: it shows what delivery itself costs here, where " +
			"every subscriber costs a write on the server and a read in the client, on the same two cores; the " +
			"parallel bare fan-out shares those writes between one goroutine per processor, each writing its " +
			"share of the subscribers over package wsconn (the framing and writes of ours), from a server " +
			"process of its own as ours and go-ethereum are: the least a server can do for a delivery here. " +
			"The write system calls alone are the harness writing a notification-sized message (100 bytes) to as " +
			"many loopback TCP connections in turn, nobody reading: the least a write to each can cost here. " +
			"Writes and reads are the same writes shared between one goroutine per processor, with a goroutine of " +
			"the harness reading each connection, the clock stopping when the last has the message: the least a " +
			"delivery to each subscriber can cost on these two cores, the readers' share included",
		Metric: schema.Metric{Name: "ms", Unit: "ms until the last subscriber has it", Better: schema.Lower, Log: true},
		XLabel: "subscribers",
	}
	rounds, warmup, timed := broadcastShares(e.Profile)
	sizes := e.Profile.BroadcastSizes
	for _, n := range sizes {
		s.Cells = append(s.Cells, broadcastX(n))
	}
	session := func(open func(n int) (wsload.Broadcaster, error)) func(int, func(string, ...float64)) error {
		return func(i int, add func(string, ...float64)) error {
			b, err := open(sizes[i])
			if err != nil {
				return err
			}
			defer b.Close()
			times, err := wsload.Times(ctx, b, warmup, timed)
			add("ms", millis(times)...)
			return err
		}
	}
	var targets []target
	for _, impl := range append(ws.impls[:len(ws.impls):len(ws.impls)], ws.fanouts...) {
		url := ws.shared[impl.name].url
		targets = append(targets, target{name: impl.name, label: impl.label, role: impl.role,
			work: func(i int) int { return broadcastStepWork(e.Profile, sizes[i]) },
			measure: session(func(n int) (wsload.Broadcaster, error) {
				return wsload.OpenBroadcast(ctx, chat([]string{url}, []string{url}, n))
			})})
	}
	writes := func(name, label string, read bool) target {
		return target{name: name, label: label, role: schema.Ceiling,
			work:    func(i int) int { return writesStepWork(e.Profile, sizes[i]) },
			measure: session(func(n int) (wsload.Broadcaster, error) { return wsload.OpenWrites(n, notificationSize, read) })}
	}
	targets = append(targets, writes("writes", "write system calls alone", false),
		writes("writes_read", "writes and reads, no WebSocket", true))
	for _, t := range targets {
		s.Series = append(s.Series, t.series("ms", "ms"))
	}
	if err := e.turns(&s, rounds, true, targets); err != nil {
		return failed(s, err)
	}
	s.Compare("ours", "geth")
	s.Compare("ours", "fanout")
	s.Compare("ours", "fanout_parallel")
	s.Compare("fanout_parallel", "geth")
	s.Compare("ours", "writes")
	s.Compare("ours", "writes_read")
	return s
}

// chat is the session of the demo's chat: n subscribers spread over subs,
// one publisher on each of pubs.
func chat(subs, pubs []string, n int) wsload.BroadcastConfig {
	return wsload.BroadcastConfig{SubscriberURLs: subs, PublisherURLs: pubs, Subscribers: n,
		Subscribe: callRequest("demo_subscribe", `["chat"]`, 1), Notification: "demo_subscription",
		Publish: func(id int, text string) []byte {
			return callRequest("demo_publish", `["chat",`+strconv.Quote(text)+`]`, id)
		}}
}

// notificationSize is the bytes of the writes alone: about a chat
// notification's.
const notificationSize = 100
