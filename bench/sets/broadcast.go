package sets

// broadcast.go measures the time a published message takes to reach every
// subscriber.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

// broadcastX names the cell of n subscribers.
func broadcastX(n int) string { return plural(n, "subscriber", "subscribers") }

// BroadcastWork is the work Broadcast reports, in estimated milliseconds.
func BroadcastWork(p Profile) int {
	w := 0
	for _, n := range p.BroadcastSizes {
		w += 4 * broadcastStepWork(p, n)
	}
	return w
}

// broadcastStepWork is the estimated milliseconds of one broadcast cell:
// dialling and subscribing, then every message to every subscriber.
func broadcastStepWork(p Profile, n int) int {
	return 50 + n/5 + (p.BroadcastWarmup+p.BroadcastRuns)*n/80
}

// Broadcast subscribes n connections to the chat (demo_subscribe ["chat"])
// for every n of the profile, then publishes messages one at a time
// (demo_publish ["chat", text]) and times each until the last subscriber
// has it. The bare fan-out, a server that writes one pre-encoded
// notification to each connection in turn and does nothing else, shows
// what delivery costs on this machine without any JSON-RPC server.
func (ws *WebSocket) Broadcast(ctx context.Context, e *Env) schema.Set {
	s := schema.Set{
		ID: "ws_broadcast", Group: "websocket", Status: schema.Measured,
		Title:   "WebSocket: broadcast, ms from publish until the last subscriber has the message",
		Harness: ws.harness,
		Note: "one connection per subscriber and one more that publishes; the clock starts before the publish call " +
			"is written and stops when the last subscriber has read its notification; each timed message is a run. " +
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
	impls := append(ws.impls[:len(ws.impls):len(ws.impls)], ws.fanouts...)
	for _, impl := range impls {
		s.Series = append(s.Series, series(impl.name, impl.label, impl.role, "ms", "ms"))
	}
	s.Series = append(s.Series, series("writes", "write system calls alone", schema.Ceiling, "ms", "ms"),
		series("writes_read", "writes and reads, no WebSocket", schema.Ceiling, "ms", "ms"))
	runs := collector{}
	for _, n := range e.Profile.BroadcastSizes {
		x := broadcastX(n)
		s.Cells = append(s.Cells, x)
		for _, impl := range impls {
			e.Bar.Start(fmt.Sprintf("WebSocket broadcast: %s, %s", x, impl.name))
			times, err := wsload.Broadcast(ctx, wsload.BroadcastConfig{
				URL: ws.shared[impl.name].url, Subscribers: n,
				Subscribe:    callRequest("demo_subscribe", `["chat"]`, 1),
				Notification: "demo_subscription",
				Publish: func(id int, text string) []byte {
					return callRequest("demo_publish", `["chat",`+strconv.Quote(text)+`]`, id)
				},
				Warmup: e.Profile.BroadcastWarmup, Runs: e.Profile.BroadcastRuns, Timeout: 30 * time.Second,
			})
			e.Bar.Done(broadcastStepWork(e.Profile, n))
			if err != nil {
				return failed(s, fmt.Errorf("%s, %s: %w", x, impl.name, err))
			}
			for _, t := range times {
				runs.add(impl.name, "ms", x, float64(t)/float64(time.Millisecond))
			}
		}
		times, err := wsload.Writes(n, 100, e.Profile.BroadcastWarmup+e.Profile.BroadcastRuns)
		if err != nil {
			return failed(s, fmt.Errorf("%s, write system calls: %w", x, err))
		}
		for _, t := range times[e.Profile.BroadcastWarmup:] {
			runs.add("writes", "ms", x, float64(t)/float64(time.Millisecond))
		}
		times, err = wsload.WritesRead(n, 100, e.Profile.BroadcastWarmup+e.Profile.BroadcastRuns)
		if err != nil {
			return failed(s, fmt.Errorf("%s, writes and reads: %w", x, err))
		}
		for _, t := range times[e.Profile.BroadcastWarmup:] {
			runs.add("writes_read", "ms", x, float64(t)/float64(time.Millisecond))
		}
	}
	runs.fill(&s)
	s.Compare("ours", "geth")
	s.Compare("ours", "fanout")
	s.Compare("ours", "fanout_parallel")
	s.Compare("fanout_parallel", "geth")
	s.Compare("ours", "writes")
	s.Compare("ours", "writes_read")
	return s
}
