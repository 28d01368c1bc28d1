package rpcclient

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// awaitGap waits for a value on sub's Gap channel.
func awaitGap(t *testing.T, sub *ClientSubscription) {
	t.Helper()
	select {
	case <-sub.Gap():
	case <-time.After(5 * time.Second):
		t.Fatal("no gap after the reconnect")
	}
}

func TestSubscribeFallsBackToThePositionalFormOnce(t *testing.T) {
	f := &fakeSubscriptions{geth: true}
	srv := startStreamServer(t, f.server(t))
	c := dialTest(t, srv.url())
	a, b := make(chan int, 4), make(chan int, 4)
	subA, err := c.Subscribe(testContext(t), "fake", a, "numbers")
	if err != nil {
		t.Fatal(err)
	}
	f.forms(t, 1, 1)
	subB, err := c.Subscribe(testContext(t), "fake", b, "numbers", 7)
	if err != nil {
		t.Fatal(err)
	}
	f.forms(t, 1, 2)
	emitTo(t, c, subA, 1, "", 0)
	emitTo(t, c, subB, 2, "", 0)
	if got := receive(t, a, 1); got[0] != 1 {
		t.Fatalf("a got %v", got)
	}
	if got := receive(t, b, 1); got[0] != 2 {
		t.Fatalf("b got %v", got)
	}
	// Made again positionally, with a gap: nothing says what was missed.
	srv.dropConnections()
	awaitGap(t, subA)
	awaitGap(t, subB)
	f.forms(t, 1, 4)
	emitTo(t, c, subA, 3, "", 0)
	if got := receive(t, a, 1); got[0] != 3 {
		t.Fatalf("a got %v after the reconnect", got)
	}
}

func TestSubscribeReportsTheSourcesError(t *testing.T) {
	f := &fakeSubscriptions{}
	srv := startStreamServer(t, f.server(t))
	c := dialTest(t, srv.url())
	ch := make(chan int, 4)
	var rpcErr *rpccore.Error
	// Not yet known to take the object form: tried positionally too.
	if _, err := c.Subscribe(testContext(t), "fake", ch, "bad"); !errors.As(err, &rpcErr) || rpcErr.Message != "bad args" {
		t.Fatalf("bad subscribe: %v", err)
	}
	f.forms(t, 1, 1)
	if _, err := c.Subscribe(testContext(t), "fake", ch, "numbers", 1); err != nil {
		t.Fatal(err)
	}
	f.forms(t, 2, 1)
	// Known now: the object form's error is the source's.
	if _, err := c.Subscribe(testContext(t), "fake", ch, "bad"); !errors.As(err, &rpcErr) || rpcErr.Message != "bad args" {
		t.Fatalf("bad subscribe: %v", err)
	}
	f.forms(t, 3, 1)
}

func TestSubscribeErrorOfThisModulesSource(t *testing.T) {
	srv := startStreamServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.url())
	var rpcErr *rpccore.Error
	_, err := c.Subscribe(testContext(t), "demo", make(chan int), "ticks", 0)
	if !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeInvalidParams {
		t.Fatalf("ticks every 0 ms: %v", err)
	}
	if c.subs.form("demo").positional {
		t.Fatal("a source's error made the namespace positional")
	}
}

func TestResumeSendsTheLastPosition(t *testing.T) {
	f := &fakeSubscriptions{recover: true}
	srv := startStreamServer(t, f.server(t))
	c := dialTest(t, srv.url())
	ch := make(chan int, 4)
	sub, err := c.Subscribe(testContext(t), "fake", ch, "numbers", 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.lastObjectParams(); got != `{"name":"numbers","args":[5]}` {
		t.Fatalf("first subscribe %s", got)
	}
	emitTo(t, c, sub, 1, "ep", 7)
	receive(t, ch, 1)
	srv.dropConnections()
	deadline := time.Now().Add(5 * time.Second)
	for f.object.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("not made again")
		}
		time.Sleep(time.Millisecond)
	}
	if got := f.lastObjectParams(); got != `{"name":"numbers","args":[5],"resume":{"epoch":"ep","offset":7}}` {
		t.Fatalf("made again with %s", got)
	}
	// Recovered: no gap.
	for sub.serverID() == "" || sub.boundOn() != c.conns.Load() {
		if time.Now().After(deadline) {
			t.Fatal("not bound again")
		}
		time.Sleep(time.Millisecond)
	}
	emitTo(t, c, sub, 2, "ep", 8)
	receive(t, ch, 1)
	select {
	case <-sub.Gap():
		t.Fatal("a gap after a recovered resume")
	case <-time.After(20 * time.Millisecond):
	}
}

func TestNotificationsNotAfterTheLastAreDropped(t *testing.T) {
	f := &fakeSubscriptions{}
	srv := startStreamServer(t, f.server(t))
	c := dialTest(t, srv.url())
	ch := make(chan int, 16)
	sub, err := c.Subscribe(testContext(t), "fake", ch, "numbers")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct {
		value  int
		epoch  string
		offset uint64
	}{
		{1, "a", 1}, {2, "a", 2}, {-1, "a", 2}, {-1, "a", 1}, {3, "a", 5},
		{4, "b", 1}, // another epoch: cannot be compared, so it is kept
		{5, "b", 3}, {-1, "b", 3}, {6, "", 0}, {-1, "b", 2}, {7, "b", 4},
	} {
		emitTo(t, c, sub, n.value, n.epoch, n.offset)
	}
	got := receive(t, ch, 7)
	if !slices.Equal(got, []int{1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("got %v", got)
	}
	if len(ch) != 0 {
		t.Fatalf("%d more", len(ch))
	}
}
