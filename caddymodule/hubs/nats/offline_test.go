package natshub

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// unreachableURL returns a loopback URL that nothing listens on.
func unreachableURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "nats://" + addr
}

// offlineHub returns a hub whose NATS is unreachable.
func offlineHub(t *testing.T, history bool, maxPending int) *Hub {
	t.Helper()
	opts := Options{URLs: []string{unreachableURL(t)}, SubjectPrefix: "test", Name: "offline",
		PublishTimeout: time.Second, MaxPending: maxPending, ReconnectWait: 20 * time.Millisecond}
	if history {
		opts.History = &History{MaxMsgs: 100}
	}
	h, err := New(opts, nil)
	if err != nil {
		t.Fatalf("New with NATS unreachable: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// collected records what a subscriber gets.
type collected struct {
	mu   sync.Mutex
	msgs []rpccore.Message
}

func (c *collected) deliver(m rpccore.Message) {
	c.mu.Lock()
	c.msgs = append(c.msgs, m)
	c.mu.Unlock()
}

func (c *collected) get() []rpccore.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]rpccore.Message(nil), c.msgs...)
}

func TestOfflineHubDeliversLocallyAndQueues(t *testing.T) {
	for _, history := range []bool{false, true} {
		h := offlineHub(t, history, 3)
		if h.KeepsHistory() != history {
			t.Errorf("KeepsHistory = %v, want %v", h.KeepsHistory(), history)
		}
		var c collected
		unsubscribe, err := h.Subscribe("room", c.deliver)
		if err != nil {
			t.Fatalf("Subscribe with NATS unreachable: %v", err)
		}
		for i := range 3 {
			if err := h.Publish("room", []byte(`"m`+string(rune('0'+i))+`"`)); err != nil {
				t.Fatalf("publish %d with room in the queue: %v", i, err)
			}
		}
		err = h.Publish("room", []byte(`"refused"`))
		var rpcErr *rpccore.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeServerError || !strings.Contains(rpcErr.Message, "max_pending") {
			t.Errorf("publish past max_pending = %v, want a server error naming max_pending", err)
		}
		msgs := c.get()
		if len(msgs) != 3 {
			t.Fatalf("history %v: the local subscriber got %d messages, want the 3 queued", history, len(msgs))
		}
		for i, m := range msgs {
			if want := `"m` + string(rune('0'+i)) + `"`; string(m.Payload) != want {
				t.Errorf("message %d = %s, want %s", i, m.Payload, want)
			}
			switch {
			case !history && !m.Position.IsZero():
				t.Errorf("without history, message %d has position %+v", i, m.Position)
			case history && (!strings.HasPrefix(m.Position.Epoch, "local-") || m.Position.Offset != uint64(i+1)):
				t.Errorf("message %d has position %+v, want a local one, offset %d", i, m.Position, i+1)
			}
		}
		if history {
			if pos, err := h.Head(t.Context(), "room"); err != nil || !pos.IsZero() {
				t.Errorf("Head with NATS never reached = %+v, %v; want no position", pos, err)
			}
			// History tries again while NATS is away, as long as its context
			// lets it.
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			_, ok, err := h.History(ctx, "room", rpccore.Position{Epoch: "x", Offset: 1})
			cancel()
			if ok || err == nil || !strings.Contains(err.Error(), "NATS is unreachable") {
				t.Errorf("History with NATS unreachable: ok %v, err %v; want an error saying so", ok, err)
			}
		}
		unsubscribe()
		if n := len(h.snapshot()); n != 0 {
			t.Errorf("%d topics left after the last unsubscribe", n)
		}
		h.Close()
		if err := h.Publish("room", []byte(`1`)); !errors.Is(err, rpccore.ErrHubClosed) {
			t.Errorf("Publish after Close = %v", err)
		}
		if _, err := h.Subscribe("room", c.deliver); !errors.Is(err, rpccore.ErrHubClosed) {
			t.Errorf("Subscribe after Close = %v", err)
		}
	}
}
