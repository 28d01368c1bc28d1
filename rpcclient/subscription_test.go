package rpcclient

import (
	"errors"
	"testing"
	"time"
)

// receive waits for n values on ch.
func receive[T any](t *testing.T, ch <-chan T, n int) []T {
	t.Helper()
	var got []T
	timeout := time.After(5 * time.Second)
	for len(got) < n {
		select {
		case v := <-ch:
			got = append(got, v)
		case <-timeout:
			t.Fatalf("got %d of %d notifications", len(got), n)
		}
	}
	return got
}

func TestSubscribeAndUnsubscribe(t *testing.T) {
	for name, url := range transports(t, newTestRPCServer(t)) {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, url)
			ticks := make(chan int, 16)
			sub, err := c.Subscribe(testContext(t), "demo", ticks, "ticks", 2)
			if err != nil {
				t.Fatal(err)
			}
			got := receive(t, ticks, 3)
			if got[0] != 1 || got[1] != 2 || got[2] != 3 {
				t.Fatalf("ticks %v", got)
			}
			sub.Unsubscribe()
			if _, open := <-sub.Err(); open {
				t.Fatal("Err still open after Unsubscribe")
			}
			// Drain what was sent before; nothing comes after.
			for len(ticks) > 0 {
				<-ticks
			}
			time.Sleep(20 * time.Millisecond)
			if len(ticks) != 0 {
				t.Fatal("a notification after Unsubscribe")
			}
		})
	}
}

func TestChatSubscriptionAndPublish(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	a, b := dialTest(t, srv.url()), dialTest(t, srv.url())
	msgs := make(chan string, 4)
	if _, err := a.Subscribe(testContext(t), "demo", msgs, "chat"); err != nil {
		t.Fatal(err)
	}
	var ok bool
	if err := b.Call(testContext(t), &ok, "demo_publish", "chat", "hello"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got := receive(t, msgs, 1); got[0] != "hello" {
		t.Fatalf("chat %q", got)
	}
}

func TestSubscribeErrors(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	if _, err := c.Subscribe(testContext(t), "demo", make(chan int), "nope"); err == nil {
		t.Fatal("an unknown subscription was made")
	}
	if _, err := c.Subscribe(testContext(t), "demo", 5, "ticks", 2); err == nil {
		t.Fatal("a subscription without a channel was made")
	}
	if _, err := c.Subscribe(testContext(t), "demo", make(<-chan int), "ticks", 2); err == nil {
		t.Fatal("a subscription on a receive-only channel was made")
	}
}

func TestSubscriptionEndsWhenTheClientCloses(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	sub, err := c.Subscribe(testContext(t), "demo", make(chan int), "ticks", 1)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := <-sub.Err(); !errors.Is(err, ErrClientClosed) {
		t.Fatalf("Err: %v", err)
	}
	sub.Unsubscribe() // after the end: nothing happens
}
