package tests

// nats_hub_faults_test.go takes NATS away from the hub: down at start,
// lost while publishing, messages lost on core NATS, and a restart.

import (
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	natshub "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestNATSHubDownAtStart(t *testing.T) {
	n := newNATS(t)
	history := &natshub.History{MaxMsgs: 1000}
	a := newHub(t, n.URL, "late", "node-a", history)
	onA := subscribe(t, a, "room")
	if err := a.Publish("room", quote("early")); err != nil {
		t.Fatalf("publish with NATS down: %v", err)
	}
	early := onA.wait(t, 1)[0]
	if !strings.HasPrefix(early.Position.Epoch, "local-") {
		t.Errorf("a message delivered while NATS is down has position %+v, want a local one", early.Position)
	}

	n.start()
	b := newHub(t, n.URL, "late", "node-b", history)
	onB := subscribe(t, b, "room")
	eventually(t, "the message queued at the start reaches the history", func() bool {
		head, err := b.Head(t.Context(), "room")
		if err != nil || head.IsZero() {
			return false
		}
		msgs, ok, err := b.History(t.Context(), "room", rpccore.Position{Epoch: head.Epoch})
		return ok && err == nil && len(msgs) == 1 && string(msgs[0].Payload) == `"early"`
	})
	eventually(t, "node a joins", func() bool { return len(liveSubjects(n, "node-a", "late")) == 1 })
	if err := b.Publish("room", quote("from b")); err != nil {
		t.Fatal(err)
	}
	// Publish returns once the hub holds a message: "from a" follows
	// "from b" in the stream only once "from b" is stored.
	onA.wait(t, 2)
	if err := a.Publish("room", quote("from a")); err != nil {
		t.Fatal(err)
	}
	checkExactly(t, "node a", payloads(onA.wait(t, 3)), []string{"early", "from b", "from a"})
	time.Sleep(100 * time.Millisecond)
	checkExactly(t, "node a, in the end", payloads(onA.all()), []string{"early", "from b", "from a"})
	got := payloads(onB.wait(t, 2))
	if len(got) == 3 {
		got = got[1:] // "early", when node a sent it after node b subscribed
	}
	checkExactly(t, "node b", got, []string{"from b", "from a"})
}

func TestNATSHubPublishWhileDisconnected(t *testing.T) {
	for _, mode := range histories {
		t.Run(mode.name, func(t *testing.T) {
			n := startNATS(t)
			a, err := natshub.New(natshub.Options{
				URLs: []string{n.URL}, SubjectPrefix: "cut", Name: "node-a", History: mode.history,
				PublishTimeout: 2 * time.Second, MaxPending: 5, ReconnectWait: 50 * time.Millisecond,
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b := newHub(t, n.URL, "cut", "node-b", mode.history)
			onA, onB := subscribe(t, a, "room"), subscribe(t, b, "room")
			if err := a.Publish("room", quote("connected")); err != nil {
				t.Fatal(err)
			}
			onB.wait(t, 1)

			n.stop()
			eventually(t, "node a notices", func() bool { return !a.Connected() })
			for i := range 5 {
				if err := a.Publish("room", quote("queued"+strconv.Itoa(i))); err != nil {
					t.Fatalf("publish %d while NATS is down, with room in the queue: %v", i, err)
				}
			}
			var rpcErr *rpccore.Error
			if err := a.Publish("room", quote("refused")); !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeServerError {
				t.Errorf("publish with the queue full = %v, want a server error", err)
			}
			local := onA.wait(t, 6)
			checkExactly(t, "node a while NATS is down", payloads(local), append([]string{"connected"}, series("queued", 0, 5)...))
			for _, m := range local[1:] {
				if mode.history != nil && !strings.HasPrefix(m.Position.Epoch, "local-") {
					t.Errorf("a message delivered while NATS is down has position %+v", m.Position)
				}
			}

			n.start()
			if mode.history != nil {
				checkExactly(t, "node b, once NATS is back", payloads(onB.wait(t, 6)),
					append([]string{"connected"}, series("queued", 0, 5)...))
			}
			eventually(t, "both nodes are back", func() bool {
				return len(liveSubjects(n, "node-a", "cut")) == 1 && len(liveSubjects(n, "node-b", "cut")) == 1
			})
			time.Sleep(200 * time.Millisecond) // node a's queue goes out
			if err := a.Publish("room", quote("back")); err != nil {
				t.Fatal(err)
			}
			want := append(append([]string{"connected"}, series("queued", 0, 5)...), "back")
			checkExactly(t, "node a", payloads(onA.wait(t, 7)), want)
			time.Sleep(100 * time.Millisecond)
			checkExactly(t, "node a, in the end", payloads(onA.all()), want)
			gotB := payloads(onB.wait(t, 2))
			if gotB[len(gotB)-1] != "back" {
				t.Errorf("node b got %v, want \"back\" last", gotB)
			}
		})
	}
}

// gapRepairs reads the hubs' gap repair counter.
func gapRepairs(t *testing.T) float64 {
	reg := prometheus.NewRegistry()
	if err := natshub.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "caddy_jsonrpc_hub_nats_gap_repairs_total" {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

func TestNATSHubRepairsWhatCoreNATSLost(t *testing.T) {
	n := startNATS(t)
	history := &natshub.History{MaxMsgs: 100000}
	a := newHub(t, n.URL, "gap", "node-a", history)
	b := newHub(t, n.URL, "gap", "node-b", history)
	onA := subscribe(t, a, "feed")
	repairsBefore := gapRepairs(t)
	const total = 600
	for i := range total {
		if i == 200 {
			n.kick("node-a") // node a misses what follows until it is back
		}
		if err := b.Publish("feed", quote("m"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	msgs := onA.wait(t, total)
	time.Sleep(100 * time.Millisecond)
	checkExactly(t, "node a", payloads(onA.all()), series("m", 0, total))
	checkPositions(t, msgs)
	if gapRepairs(t) <= repairsBefore {
		t.Errorf("no gap repair counted")
	}
}

func TestNATSHubRestartDuringPublishing(t *testing.T) {
	n := startNATS(t)
	history := &natshub.History{MaxMsgs: 100000}
	a := newHub(t, n.URL, "restart", "node-a", history)
	b := newHub(t, n.URL, "restart", "node-b", history)
	onA, onB := subscribe(t, a, "feed"), subscribe(t, b, "feed")
	const total = 1500
	restarted := make(chan struct{})
	var during atomic.Bool // publishing went on while NATS restarted
	for i := range total {
		if i == 300 {
			go func() {
				defer close(restarted)
				n.restart()
			}()
		}
		if err := b.Publish("feed", quote("m"+strconv.Itoa(i))); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		if i > 300 && !b.Connected() {
			during.Store(true)
		}
		if i%20 == 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	<-restarted
	if !during.Load() {
		t.Error("every publish went out before NATS stopped")
	}
	want := series("m", 0, total)
	onA.wait(t, total)
	onB.wait(t, total)
	time.Sleep(200 * time.Millisecond)
	checkExactly(t, "node a", payloads(onA.all()), want)
	checkExactly(t, "node b", payloads(onB.all()), want)
	head, err := a.Head(t.Context(), "feed")
	if err != nil {
		t.Fatal(err)
	}
	stored, ok, err := a.History(t.Context(), "feed", rpccore.Position{Epoch: head.Epoch})
	if !ok || err != nil {
		t.Fatalf("the history after the restart: ok %v, %v", ok, err)
	}
	checkExactly(t, "the history", payloads(stored), want)
}
