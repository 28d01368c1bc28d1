package rpcclient

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// resumeSite serves the demo, whose "chat" follows a hub topic, with a
// hub that keeps history, over one transport behind a cutter.
type resumeSite struct {
	hub *rpccore.LocalHub
	cut *cutter
	url string
}

// startResumeSite serves over transport ("ws" or "tcp") with a history of
// maxMessages per topic.
func startResumeSite(t *testing.T, transport string, maxMessages int) *resumeSite {
	hub := rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: maxMessages})
	srv := rpccore.NewServer(rpccore.WithHub(hub))
	if err := demo.Register(srv); err != nil {
		t.Fatal(err)
	}
	var target, scheme string
	switch transport {
	case "ws":
		target, scheme = strings.TrimPrefix(startWebSocketServer(t, srv), "ws://"), "ws://"
	case "tcp":
		target, scheme = startStreamServer(t, srv).addr, "tcp://"
	}
	cut := startCutter(t, target)
	return &resumeSite{hub: hub, cut: cut, url: scheme + cut.addr}
}

// publish publishes the numbers from through to on the chat topic.
func (s *resumeSite) publish(t *testing.T, from, to int) {
	for n := from; n <= to; n++ {
		if err := s.hub.Publish(demo.ChatTopic, strconv.AppendInt(nil, int64(n), 10)); err != nil {
			t.Error(err)
			return
		}
	}
}

// expectRun receives from through to on ch, in order, none twice.
func expectRun(t *testing.T, ch <-chan int, from, to int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for want := from; want <= to; want++ {
		select {
		case got := <-ch:
			if got != want {
				t.Fatalf("got %d, want %d", got, want)
			}
		case <-timeout:
			t.Fatalf("waiting for %d of %d..%d", want, from, to)
		}
	}
}

// noGap checks, a little after the subscription is bound again, that it
// signalled no gap.
func noGap(t *testing.T, c *Client, sub *ClientSubscription) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for sub.serverID() == "" || sub.boundOn() != c.conns.Load() {
		if time.Now().After(deadline) {
			t.Fatal("not bound again")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-sub.Gap():
		t.Fatal("a gap, though the server recovered every missed message")
	case <-time.After(20 * time.Millisecond):
	}
}

// resumeCases are the transports and options the resume tests run with.
var resumeCases = []struct {
	name, transport string
	hook            bool
}{
	{"ws", "ws", false},
	{"tcp", "tcp", false},
	{"tcp with a resubscribe hook", "tcp", true},
}

// resumeClient dials site for a case, and subscribes to the chat.
func resumeClient(t *testing.T, site *resumeSite, hook bool) (*Client, *ClientSubscription, chan int, *stateLog, *atomic.Int64) {
	log := newStateLog()
	var hooked atomic.Int64
	opts := []Option{WithStateFunc(log.record)}
	if hook {
		opts = append(opts, WithResubscribe(func(_ string, params, _ rpccore.RawJSON) rpccore.RawJSON {
			hooked.Add(1)
			return params
		}))
	}
	c := dialTest(t, site.url, opts...)
	msgs := make(chan int, 2048)
	sub, err := c.Subscribe(testContext(t), "demo", msgs, "chat")
	if err != nil {
		t.Fatal(err)
	}
	return c, sub, msgs, log, &hooked
}

// TestResumeAfterAnOutage publishes 1,000 messages, most of them while
// the client cannot reach the server: it gets every one, in order, once,
// and no gap.
func TestResumeAfterAnOutage(t *testing.T) {
	for _, tc := range resumeCases {
		t.Run(tc.name, func(t *testing.T) {
			site := startResumeSite(t, tc.transport, 4096)
			c, sub, msgs, log, hooked := resumeClient(t, site, tc.hook)
			site.publish(t, 1, 300)
			expectRun(t, msgs, 1, 300)
			site.cut.down()
			log.await(t, Reconnecting)
			site.publish(t, 301, 1000)
			site.cut.up()
			expectRun(t, msgs, 301, 1000)
			noGap(t, c, sub)
			site.publish(t, 1001, 1001)
			expectRun(t, msgs, 1001, 1001)
			if len(msgs) != 0 {
				t.Fatalf("%d notifications more", len(msgs))
			}
			if tc.hook && hooked.Load() == 0 {
				t.Fatal("the resubscribe hook was not called")
			}
		})
	}
}

// TestResumeAfterACutWhilePublishing cuts the connection while 1,000
// messages are being published: some were on their way, some come while
// the client redials.
func TestResumeAfterACutWhilePublishing(t *testing.T) {
	for _, tc := range resumeCases {
		t.Run(tc.name, func(t *testing.T) {
			site := startResumeSite(t, tc.transport, 4096)
			c, sub, msgs, log, _ := resumeClient(t, site, tc.hook)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for n := 1; n <= 1000; n += 10 {
					site.publish(t, n, n+9)
					time.Sleep(100 * time.Microsecond)
				}
			}()
			expectRun(t, msgs, 1, 200)
			site.cut.cut()
			log.await(t, Reconnecting)
			expectRun(t, msgs, 201, 1000)
			<-done
			noGap(t, c, sub)
			if len(msgs) != 0 {
				t.Fatalf("%d notifications more", len(msgs))
			}
		})
	}
}

// TestResumeBeyondTheHistory loses more messages than the history keeps:
// the subscription signals a gap and goes on with the live ones.
func TestResumeBeyondTheHistory(t *testing.T) {
	for _, tc := range resumeCases {
		t.Run(tc.name, func(t *testing.T) {
			site := startResumeSite(t, tc.transport, 10)
			_, sub, msgs, log, _ := resumeClient(t, site, tc.hook)
			site.publish(t, 1, 5)
			expectRun(t, msgs, 1, 5)
			site.cut.down()
			log.await(t, Reconnecting)
			site.publish(t, 6, 1005)
			site.cut.up()
			awaitGap(t, sub)
			site.publish(t, 2000, 2001)
			expectRun(t, msgs, 2000, 2001) // none of the lost ones, then the live ones
		})
	}
}
