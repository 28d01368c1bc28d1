package tests

// nats_hub_limits_test.go checks the NATS hub's channel for rate limit
// reports on the embedded server: a publish answers once the server
// confirmed it, and a hub back on NATS says so.

import (
	"testing"
	"time"
)

func TestHubShareLimitsConfirmsAndSaysWhenItIsBack(t *testing.T) {
	t.Parallel() // independent: its own NATS server
	ns := startNATS(t)
	a := newHub(t, ns.URL, "share_limits_test", "limits-a", nil)
	b := newHub(t, ns.URL, "share_limits_test", "limits-b", nil)
	got := make(chan string, 16)
	rejoined := make(chan struct{}, 16)
	publish, stop, err := a.ShareLimits("z", func([]byte) {}, func() { rejoined <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	_, stopB, err := b.ShareLimits("z", func(m []byte) { got <- string(m) }, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer stopB()
	if err := publish([]byte("one")); err != nil {
		t.Fatalf("a publish with NATS up: %v", err)
	}
	select {
	case m := <-got:
		if m != "one" {
			t.Fatalf("got %q", m)
		}
	case <-time.After(natsWait):
		t.Fatal("the other hub got nothing")
	}

	ns.kick("limits-a")
	select {
	case <-rejoined:
	case <-time.After(natsWait):
		t.Fatal("the hub never said it was back on NATS")
	}
	ns.stop()
	start := time.Now()
	if err := publish([]byte("two")); err == nil {
		t.Fatal("a publish with NATS down answered nil")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a publish with NATS down took %s to fail", d)
	}
}
