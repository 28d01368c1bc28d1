package rpccore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestLocalHubHistoryKeepsTheNewest(t *testing.T) {
	ctx := context.Background()
	hub := rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 100})
	start, _ := hub.Head(ctx, "t")
	for i := range 250 { // past its first sizes and round the ring
		if err := hub.Publish("t", fmt.Append(nil, i)); err != nil {
			t.Fatal(err)
		}
	}
	head, _ := hub.Head(ctx, "t")
	if head.Offset != 250 || head.Epoch != start.Epoch || start.Offset != 0 {
		t.Fatalf("head %+v after 250 from %+v", head, start)
	}
	msgs, ok, _ := hub.History(ctx, "t", rpccore.Position{Epoch: head.Epoch, Offset: 150})
	if !ok || len(msgs) != 100 {
		t.Fatalf("after 150: ok %v, %d messages; want the 100 kept", ok, len(msgs))
	}
	for i, m := range msgs {
		if string(m.Payload) != fmt.Sprint(150+i) || m.Position.Offset != uint64(151+i) {
			t.Fatalf("message %d is %s at %d", i, m.Payload, m.Position.Offset)
		}
	}
	if _, ok, _ := hub.History(ctx, "t", rpccore.Position{Epoch: head.Epoch, Offset: 149}); ok {
		t.Fatal("message 150 is gone: the gap after 149 cannot be recovered")
	}
	if _, ok, _ := hub.History(ctx, "other", rpccore.Position{Epoch: head.Epoch}); !ok {
		t.Fatal("a topic with nothing published has nothing to miss")
	}
	if other := rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 1}); func() bool {
		p, _ := other.Head(ctx, "t")
		return p.Epoch == head.Epoch
	}() {
		t.Fatal("two hubs drew the same epoch")
	}
}

func TestLocalHubHistoryAgesOut(t *testing.T) {
	ctx := context.Background()
	hub := rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 10, MaxAgeNanos: int64(20 * time.Millisecond)})
	_ = hub.Publish("t", []byte("1"))
	head, _ := hub.Head(ctx, "t")
	from := rpccore.Position{Epoch: head.Epoch}
	if msgs, ok, _ := hub.History(ctx, "t", from); !ok || len(msgs) != 1 {
		t.Fatal("a fresh message is kept")
	}
	time.Sleep(40 * time.Millisecond)
	if _, ok, _ := hub.History(ctx, "t", from); ok {
		t.Fatal("a message older than the age limit is gone")
	}
	if _, ok, _ := hub.History(ctx, "t", head); !ok {
		t.Fatal("nothing was missed after the head")
	}
}

func TestLocalHubWithoutHistory(t *testing.T) {
	hub := rpccore.NewLocalHub()
	var got []rpccore.Message
	stop, err := hub.Subscribe("t", func(m rpccore.Message) { got = append(got, m) })
	if err != nil {
		t.Fatal(err)
	}
	_ = hub.Publish("t", []byte(`"a"`))
	stop()
	_ = hub.Publish("t", []byte(`"b"`))
	if len(got) != 1 || !got[0].Position.IsZero() || hub.KeepsHistory() {
		t.Fatalf("got %+v", got)
	}
	if hub.Subscribers("t") != 0 {
		t.Fatal("an unsubscribed topic is dropped")
	}
}

func TestClosedHubRefuses(t *testing.T) {
	hub := rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 1})
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := hub.Subscribe("t", func(rpccore.Message) {}); !errors.Is(err, rpccore.ErrHubClosed) {
		t.Fatalf("subscribe on a closed hub: %v", err)
	}
	if err := hub.Publish("t", []byte("1")); !errors.Is(err, rpccore.ErrHubClosed) {
		t.Fatalf("publish on a closed hub: %v", err)
	}
}

// BenchmarkLocalHubPublish fans one message out to 1,000 subscribers, with
// and without history (which numbers the message and keeps it).
func BenchmarkLocalHubPublish(b *testing.B) {
	for _, h := range []struct {
		name string
		hub  *rpccore.LocalHub
	}{
		{"no_history", rpccore.NewLocalHub()},
		{"history", rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 1000})},
	} {
		b.Run(h.name, func(b *testing.B) {
			var got int
			for range 1000 {
				if _, err := h.hub.Subscribe("t", func(rpccore.Message) { got++ }); err != nil {
					b.Fatal(err)
				}
			}
			payload := []byte(`"hello"`)
			b.ReportAllocs()
			for b.Loop() {
				_ = h.hub.Publish("t", payload)
			}
			if got != 1000*b.N {
				b.Fatalf("delivered %d", got)
			}
		})
	}
}
