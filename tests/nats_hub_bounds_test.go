package tests

// nats_hub_bounds_test.go checks the NATS hub's history as production
// runs it: bounds per topic, a stream configuration NATS refuses, a short
// loss of NATS, and positions for subscriptions made before NATS was
// reached.

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	natshub "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestNATSHubBoundsEachTopicAlone(t *testing.T) {
	t.Parallel()
	n := startNATS(t)
	h := newHub(t, n.URL, "per_topic", "node-a", &natshub.History{MaxMsgsPerTopic: 5})
	quiet, busy := subscribe(t, h, "quiet"), subscribe(t, h, "busy")
	for i := range 2 {
		if err := h.Publish("quiet", quote("q"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	quietMsgs := quiet.wait(t, 2)
	for i := range 50 {
		if err := h.Publish("busy", quote("b"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	busyMsgs := busy.wait(t, 50)
	checkPositions(t, busyMsgs)

	// The quiet topic keeps its two messages, however many the busy one had.
	before := rpccore.Position{Epoch: quietMsgs[0].Position.Epoch, Offset: quietMsgs[0].Position.Offset - 1}
	msgs, ok, err := h.History(t.Context(), "quiet", before)
	if err != nil || !ok {
		t.Fatalf("the quiet topic's history = %v, %v, want it whole", ok, err)
	}
	checkExactly(t, "the quiet topic's history", payloads(msgs), []string{"q0", "q1"})

	// The busy topic resumes when it missed at most its 5, and says so
	// when it missed more.
	for missed := 1; missed <= 7; missed++ {
		from := busyMsgs[len(busyMsgs)-1-missed].Position
		msgs, ok, err := h.History(t.Context(), "busy", from)
		if err != nil {
			t.Fatal(err)
		}
		if want := missed <= 5; ok != want {
			t.Fatalf("a resume that missed %d of the busy topic: recovered %v, want %v", missed, ok, want)
		}
		if ok {
			checkExactly(t, "missed "+strconv.Itoa(missed), payloads(msgs), series("b", 50-missed, missed))
		} else if len(msgs) != 0 {
			t.Fatalf("a resume that is not recovered replays %d messages", len(msgs))
		}
	}
}

func TestNATSHubRefusesAStreamNATSCannotKeep(t *testing.T) {
	t.Parallel()
	n := startNATS(t)
	open := func(h *natshub.History) error {
		hub, err := natshub.New(natshub.Options{
			URLs: []string{n.URL}, SubjectPrefix: "refused", Name: "node-a", History: h,
			PublishTimeout: 2 * time.Second, MaxPending: 10,
		}, nil)
		if err == nil {
			hub.Close()
		}
		return err
	}
	err := open(&natshub.History{MaxMsgs: 10, Replicas: 3})
	var refused *natshub.StreamRefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "replicas 3 needs a JetStream cluster") {
		t.Fatalf("replicas 3 on a lone server: %v, want a StreamRefusedError naming replicas", err)
	}
	if err := open(&natshub.History{MaxMsgs: 10}); err != nil {
		t.Fatalf("replicas 1: %v", err)
	}
	// The stream is kept in files now; NATS cannot move it to memory.
	err = open(&natshub.History{MaxMsgs: 10, Memory: true})
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "cannot change") {
		t.Fatalf("a change of storage: %v, want a StreamRefusedError saying NATS cannot change it", err)
	}
	// A change NATS can make is made: the per-topic bound.
	if err := open(&natshub.History{MaxMsgs: 10, MaxMsgsPerTopic: 3}); err != nil {
		t.Fatalf("adding max_msgs_per_topic: %v", err)
	}
}

func TestNATSHubShortLossKeepsStreamPositions(t *testing.T) {
	t.Parallel()
	n := startNATS(t)
	h := newHub(t, n.URL, "short_loss", "node-a", &natshub.History{MaxMsgs: 1000})
	on := subscribe(t, h, "room")
	if err := h.Publish("room", quote("before")); err != nil {
		t.Fatal(err)
	}
	on.wait(t, 1)
	n.restart() // well within publish_timeout (2s)
	for i := range 3 {
		if err := h.Publish("room", quote("during"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	msgs := on.wait(t, 4)
	checkExactly(t, "the subscriber", payloads(msgs), append([]string{"before"}, series("during", 0, 3)...))
	checkPositions(t, msgs) // none local: every one came through the stream
	got, ok, err := h.History(t.Context(), "room", msgs[0].Position)
	if err != nil || !ok {
		t.Fatalf("a resume from before the loss: %v, %v", ok, err)
	}
	checkExactly(t, "the resume", payloads(got), series("during", 0, 3))
}

func TestNATSHubPositionsOnceNATSIsReached(t *testing.T) {
	t.Parallel()
	n := newNATS(t)
	h := newHub(t, n.URL, "from_start", "node-a", &natshub.History{MaxMsgs: 1000})
	on := subscribe(t, h, "room")
	if head, err := h.Head(t.Context(), "room"); err != nil || !head.IsZero() {
		t.Fatalf("Head before NATS was ever reached = %+v, %v, want no position", head, err)
	}
	if err := h.Publish("room", quote("alone")); err != nil {
		t.Fatal(err)
	}
	alone := on.wait(t, 1)[0]
	n.start()
	eventually(t, "the hub reaches NATS", h.Connected)
	if err := h.Publish("room", quote("joined")); err != nil {
		t.Fatal(err)
	}
	msgs := on.wait(t, 2)
	checkExactly(t, "the subscriber", payloads(msgs), []string{"alone", "joined"})
	checkPositions(t, msgs[1:]) // the first after the connection has a stream position
	for _, from := range []rpccore.Position{alone.Position, {}} {
		got, ok, err := h.History(t.Context(), "room", from)
		if err != nil || ok || len(got) != 0 {
			t.Errorf("a resume from %+v, before the hub reached NATS = %d messages, %v, %v; want recovered false",
				from, len(got), ok, err)
		}
	}
	got, ok, err := h.History(t.Context(), "room", msgs[1].Position)
	if err != nil || !ok || len(got) != 0 {
		t.Errorf("a resume from the first stream position = %d messages, %v, %v; want recovered, nothing missed", len(got), ok, err)
	}
}

func TestNATSHubResumeWaitsOutAShortLoss(t *testing.T) {
	t.Parallel()
	n := startNATS(t)
	h := newHub(t, n.URL, "resume_loss", "node-a", &natshub.History{MaxMsgs: 1000})
	on := subscribe(t, h, "room")
	for i := range 3 {
		if err := h.Publish("room", quote("m"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	msgs := on.wait(t, 3)
	n.stop()
	eventually(t, "the hub notices", func() bool { return !h.Connected() })
	type answer struct {
		msgs []rpccore.Message
		ok   bool
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		got, ok, err := h.History(t.Context(), "room", msgs[0].Position)
		done <- answer{got, ok, err}
	}()
	time.Sleep(300 * time.Millisecond)
	n.start()
	a := <-done
	if a.err != nil || !a.ok {
		t.Fatalf("a resume asked while NATS was away, back 300ms later: %v, %v; want it recovered", a.ok, a.err)
	}
	checkExactly(t, "the resume", payloads(a.msgs), series("m", 1, 2))
}
