package demo

// subscriptions.go holds the demo's subscription sources: a ticking counter,
// a flood of numbers sent as fast as the client reads them, and a chat room
// that every connection on the server shares.

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Namespace is the demo's subscription namespace: demo_subscribe,
// demo_unsubscribe and demo_subscription.
const Namespace = "demo"

// ChatTopic is the hub topic of the chat room.
const ChatTopic = "demo.chat"

// registerSubscriptions adds "ticks", "flood", "chat" and demo_publish to s.
func registerSubscriptions(s *rpccore.Server) error {
	hub := s.Hub()
	ticks := rpccore.Proc1(startTicks, "intervalMs").Describe(rpccore.Doc{
		Summary: "Counts 1, 2, 3... every intervalMs milliseconds (1 to 3600000).",
	})
	if err := s.RegisterSubscription(Namespace, "ticks", ticks); err != nil {
		return err
	}
	flood := rpccore.Proc1(startFlood, "count").Describe(rpccore.Doc{
		Summary: "Sends 1 to count (at most 1000000000) as fast as the client reads them, none dropped.",
	})
	if err := s.RegisterSubscription(Namespace, "flood", flood); err != nil {
		return err
	}
	chat := rpccore.Proc0(func(ctx context.Context) error {
		return rpccore.SubscriptionFrom(ctx).Follow(hub, ChatTopic)
	}).Describe(rpccore.Doc{Summary: "Every message demo_publish sends to the chat room."})
	if err := s.RegisterSubscription(Namespace, "chat", chat); err != nil {
		return err
	}
	publish := rpccore.Func2(func(_ context.Context, room, message string) (bool, error) {
		if room != "chat" {
			return false, &rpccore.Error{Code: rpccore.CodeInvalidParams, Message: "Invalid params",
				Data: "no room " + strconv.Quote(room) + "; the demo has \"chat\""}
		}
		return true, hub.Publish(ChatTopic, rpccore.AppendString(nil, message))
	}, "room", "message").Default("room", "chat").Describe(rpccore.Doc{
		Summary: "Sends message to every subscriber of the room.",
		Params:  map[string]string{"room": `The room: the demo has one, "chat".`},
		Result:  "true once the message is handed to the hub.",
	})
	return s.Register("demo_publish", publish)
}

// MinTickInterval is the shortest interval "ticks" accepts.
const MinTickInterval = time.Millisecond

// startTicks starts a counter that sends 1, 2, 3, ... every intervalMs.
func startTicks(ctx context.Context, intervalMs int) error {
	interval := time.Duration(intervalMs) * time.Millisecond
	if interval < MinTickInterval || interval > time.Hour {
		return &rpccore.Error{Code: rpccore.CodeInvalidParams, Message: "Invalid params",
			Data: "intervalMs must be between 1 and 3600000"}
	}
	sub := rpccore.SubscriptionFrom(ctx)
	if sub == nil {
		return errors.New("ticks: not started by a subscription")
	}
	go func() {
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		for n := 1; ; n++ {
			select {
			case <-sub.Context().Done():
				return
			case <-ticker.C:
				if sub.SendJSON(strconv.AppendInt(nil, int64(n), 10)) != nil {
					return
				}
			}
		}
	}()
	return nil
}

// MaxFlood is the most numbers "flood" sends.
const MaxFlood = 1_000_000_000

// startFlood sends 1, 2, ..., count as fast as the connection takes them,
// then stops. It waits for room in the send queue rather than dropping
// (Subscription.SendJSONWait), so the client gets every number, in order,
// whatever the slow-consumer policy; it stops early when the subscription
// ends.
func startFlood(ctx context.Context, count int) error {
	if count < 1 || count > MaxFlood {
		return &rpccore.Error{Code: rpccore.CodeInvalidParams, Message: "Invalid params",
			Data: "count must be between 1 and " + strconv.Itoa(MaxFlood)}
	}
	sub := rpccore.SubscriptionFrom(ctx)
	if sub == nil {
		return errors.New("flood: not started by a subscription")
	}
	go func() {
		// Each value is shared with the send queue until it is written, so
		// none is reused: they are cut from blocks of 4 KiB.
		var block []byte
		for n := 1; n <= count; n++ {
			if cap(block)-len(block) < 20 {
				block = make([]byte, 0, 4096)
			}
			v := strconv.AppendInt(block[len(block):], int64(n), 10)
			block = block[:len(block)+len(v)]
			if sub.SendJSONWait(v) != nil {
				return
			}
		}
	}()
	return nil
}
