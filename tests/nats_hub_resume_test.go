package tests

// nats_hub_resume_test.go resumes subscriptions through the NATS hub's
// history: recovered, aged out, and across a stream made again.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	natshub "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestNATSHubResumeRecoversEveryMissedMessage(t *testing.T) {
	n := startNATS(t)
	history := &natshub.History{MaxMsgs: 10000}
	a := newHub(t, n.URL, "resume", "node-a", history)
	b := newHub(t, n.URL, "resume", "node-b", history)
	eventually(t, "node a has its stream", func() bool {
		head, err := a.Head(t.Context(), demo.ChatTopic)
		return err == nil && head.Epoch != "" && !strings.HasPrefix(head.Epoch, "local-")
	})
	srv := demoServer(t, a)

	first := connect(t, srv)
	if answer := first.subscribeChat(nil); answer.Position == nil || answer.Recovered != nil {
		t.Fatalf("a first subscription answered %+v", answer)
	}
	for i := range 10 {
		if err := b.Publish(demo.ChatTopic, quote("m"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	seen := first.notifications(10)
	checkExactly(t, "the first connection", texts(seen), series("m", 0, 10))
	first.close()

	const missed, live = 1000, 100
	for i := range missed {
		if err := b.Publish(demo.ChatTopic, quote("m"+strconv.Itoa(10+i))); err != nil {
			t.Fatal(err)
		}
	}
	second := connect(t, srv)
	go func() {
		for i := range live {
			if err := b.Publish(demo.ChatTopic, quote("m"+strconv.Itoa(10+missed+i))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	last := seen[len(seen)-1].position
	answer := second.subscribeChat(&last)
	if answer.Recovered == nil || !*answer.Recovered || answer.Position == nil || *answer.Position != last {
		t.Fatalf("the resume answered %+v", answer)
	}
	got := second.notifications(missed + live)
	checkExactly(t, "the resumed connection", texts(got), series("m", 10, missed+live))
	for i := 1; i < len(got); i++ {
		if got[i].position.Epoch != last.Epoch || got[i].position.Offset <= got[i-1].position.Offset {
			t.Fatalf("notification %d has position %+v after %+v", i, got[i].position, got[i-1].position)
		}
	}
	select {
	case m := <-second.pipe.out:
		t.Errorf("more than every message: %s", m)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestNATSHubResumeFromOutsideTheHistory(t *testing.T) {
	n := startNATS(t)
	history := &natshub.History{MaxMsgs: 100}
	a := newHub(t, n.URL, "aged", "node-a", history)
	b := newHub(t, n.URL, "aged", "node-b", history)
	box := subscribe(t, a, demo.ChatTopic)
	for i := range 300 {
		if err := b.Publish(demo.ChatTopic, quote("m"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	msgs := box.wait(t, 300)
	old, recent := msgs[5].Position, msgs[250].Position
	if got, ok, err := a.History(t.Context(), demo.ChatTopic, old); ok || err != nil || got != nil {
		t.Errorf("History from a position the stream dropped: %d messages, ok %v, %v; want not ok", len(got), ok, err)
	}
	got, ok, err := a.History(t.Context(), demo.ChatTopic, recent)
	if !ok || err != nil {
		t.Fatalf("History from a position the stream holds: ok %v, %v", ok, err)
	}
	checkExactly(t, "the history after message 250", payloads(got), series("m", 251, 49))
	future := rpccore.Position{Epoch: old.Epoch, Offset: msgs[299].Position.Offset + 10}
	if _, ok, err := a.History(t.Context(), demo.ChatTopic, future); ok || err != nil {
		t.Errorf("History from a position never given: ok %v, %v", ok, err)
	}

	c := connect(t, demoServer(t, a))
	answer := c.subscribeChat(&old)
	if answer.Recovered == nil || *answer.Recovered {
		t.Fatalf("resuming from a dropped position answered %+v, want recovered false", answer)
	}
	if err := b.Publish(demo.ChatTopic, quote("live")); err != nil {
		t.Fatal(err)
	}
	checkExactly(t, "after a failed resume", texts(c.notifications(1)), []string{"live"})
}

func TestNATSHubStreamMadeAgainHasAnotherEpoch(t *testing.T) {
	n := startNATS(t)
	history := &natshub.History{MaxMsgs: 1000}
	a := newHub(t, n.URL, "again", "node-a", history)
	b := newHub(t, n.URL, "again", "node-b", history)
	onB := subscribe(t, b, "news")
	if err := a.Publish("news", quote("before")); err != nil {
		t.Fatal(err)
	}
	before := onB.wait(t, 1)[0].Position

	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if err := js.DeleteStream(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish("news", quote("after")); err != nil {
		t.Fatalf("publish once the stream is gone: %v", err)
	}
	msgs := onB.wait(t, 2)
	checkExactly(t, "across the stream's deletion", payloads(msgs), []string{"before", "after"})
	after := msgs[1].Position
	if after.Epoch == before.Epoch || after.IsZero() || strings.HasPrefix(after.Epoch, "local-") {
		t.Errorf("the stream made again has position %+v, the old one %+v", after, before)
	}
	if _, ok, err := a.History(t.Context(), "news", before); ok || err != nil {
		t.Errorf("History from the old epoch: ok %v, %v; want not ok", ok, err)
	}
	if head, err := b.Head(t.Context(), "news"); err != nil || head.Epoch != after.Epoch {
		t.Errorf("Head = %+v, %v; want the new epoch %s", head, err, after.Epoch)
	}
	got, ok, err := a.History(t.Context(), "news", rpccore.Position{Epoch: after.Epoch})
	if !ok || err != nil {
		t.Fatalf("History of the new stream: ok %v, %v", ok, err)
	}
	checkExactly(t, "the new stream's history", payloads(got), []string{"after"})
}
