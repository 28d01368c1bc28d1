package rpccore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// historyServer is the demo server on a local hub that keeps max messages
// of each topic.
func historyServer(t *testing.T, max int) (*rpccore.Server, *rpccore.LocalHub) {
	t.Helper()
	hub := rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: max})
	return demoServer(t, rpccore.WithHub(hub)), hub
}

// chatNote is a chat notification as the client reads it.
type chatNote struct {
	Params struct {
		Subscription string            `json:"subscription"`
		Result       string            `json:"result"`
		Position     *rpccore.Position `json:"position"`
	} `json:"params"`
}

// recvNote waits for the next message and reads it as a notification.
func recvNote(t *testing.T, c *pipeConn) chatNote {
	t.Helper()
	select {
	case m := <-c.out:
		var n chatNote
		if err := json.Unmarshal(m, &n); err != nil || n.Params.Subscription == "" {
			t.Fatalf("want a notification, got %s (%v)", m, err)
		}
		return n
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
		return chatNote{}
	}
}

// subscribeAnswer is the object answer to the object form of subscribe.
type subscribeAnswer struct {
	Subscription string            `json:"subscription"`
	Position     *rpccore.Position `json:"position"`
	Recovered    *bool             `json:"recovered"`
}

// subscribeObject subscribes to the chat with the object form, resuming
// from resume when it is set, and returns the answer.
func subscribeObject(t *testing.T, c *pipeConn, resume *rpccore.Position) subscribeAnswer {
	t.Helper()
	params := `{"name":"chat"}`
	if resume != nil {
		raw, _ := json.Marshal(resume)
		params = `{"name":"chat","args":[],"resume":` + string(raw) + `}`
	}
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":` + params + `,"id":1}`)
	v := c.recv(t)
	raw, _ := json.Marshal(v["result"])
	var a subscribeAnswer
	if err := json.Unmarshal(raw, &a); err != nil || a.Subscription == "" {
		t.Fatalf("subscribe answered %v", v)
	}
	return a
}

func publish(t *testing.T, hub rpccore.Hub, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := hub.Publish("demo.chat", rpccore.AppendString(nil, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNotificationsCarryTheirPosition(t *testing.T) {
	s, hub := historyServer(t, 100)
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 4096)
	publish(t, hub, 0, 3) // before anyone listens: kept, not sent
	a := subscribeObject(t, c, nil)
	if a.Position == nil || a.Position.Offset != 3 || a.Position.Epoch == "" || a.Recovered != nil {
		t.Fatalf("answer %+v: want the head position (offset 3) and no recovered member", a)
	}
	publish(t, hub, 3, 5)
	for want := uint64(4); want <= 5; want++ {
		n := recvNote(t, c)
		if p := n.Params.Position; p == nil || *p != (rpccore.Position{Epoch: a.Position.Epoch, Offset: want}) ||
			n.Params.Result != fmt.Sprint(want-1) {
			t.Fatalf("notification %+v: want offset %d", n.Params, want)
		}
	}
	// The positional form still answers the bare id, and its
	// notifications carry positions too.
	c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":2}`)
	if id, ok := c.recv(t)["result"].(string); !ok || !strings.HasPrefix(id, "0x") {
		t.Fatal("positional subscribe must answer the id string")
	}
}

func TestResumeReplaysWhatWasMissedThenLive(t *testing.T) {
	s, hub := historyServer(t, 2000)
	first, cancel, _ := servePeer(t, s, rpccore.PeerConfig{}, 4096)
	a := subscribeObject(t, first, nil)
	publish(t, hub, 0, 10)
	var last rpccore.Position
	for range 10 {
		last = *recvNote(t, first).Params.Position
	}
	cancel() // the connection is lost; publishing goes on
	first.close()
	publish(t, hub, 10, 1010)

	// 1,490 notifications come at once: a send queue that holds them all,
	// so that none is dropped under DropOldest while the writer is slow (a
	// busy machine), which is another test's matter.
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{SendQueue: 4096}, 4096)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // live messages keep coming during the replay
		defer wg.Done()
		publish(t, hub, 1010, 1500)
	}()
	b := subscribeObject(t, c, &last)
	if b.Recovered == nil || !*b.Recovered || *b.Position != last || b.Subscription == a.Subscription {
		t.Fatalf("resume answered %+v, want recovered from %+v", b, last)
	}
	for want := 10; want < 1500; want++ {
		n := recvNote(t, c)
		if n.Params.Result != fmt.Sprint(want) || n.Params.Position.Offset != uint64(want+1) {
			t.Fatalf("got %q at offset %d, want %d: every message once, in order", n.Params.Result, n.Params.Position.Offset, want)
		}
	}
	wg.Wait()
	select {
	case m := <-c.out:
		t.Fatalf("nothing more was published, got %s", m)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestResumeBeyondTheHistoryIsNotRecovered(t *testing.T) {
	s, hub := historyServer(t, 10)
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 4096)
	head, _ := hub.Head(context.Background(), "demo.chat")
	publish(t, hub, 0, 50) // 40 more than the history holds
	cases := map[string]rpccore.Position{
		"aged out":        head,
		"another epoch":   {Epoch: "other", Offset: 45},
		"never published": {Epoch: head.Epoch, Offset: 51},
	}
	for name, from := range cases {
		a := subscribeObject(t, c, &from)
		if a.Recovered == nil || *a.Recovered || a.Position.Offset != 50 {
			t.Fatalf("%s: answered %+v, want recovered false at the head (50)", name, a)
		}
	}
	publish(t, hub, 50, 51)
	for range cases { // live only, nothing of the gap
		if n := recvNote(t, c); n.Params.Result != "50" {
			t.Fatalf("want only the live message, got %q", n.Params.Result)
		}
	}
}

func TestResumeAtTheHeadIsRecoveredWithNothingToReplay(t *testing.T) {
	s, hub := historyServer(t, 10)
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 4096)
	publish(t, hub, 0, 3)
	head, _ := hub.Head(context.Background(), "demo.chat")
	a := subscribeObject(t, c, &head)
	if a.Recovered == nil || !*a.Recovered {
		t.Fatalf("answered %+v", a)
	}
	publish(t, hub, 3, 4)
	if n := recvNote(t, c); n.Params.Result != "3" {
		t.Fatalf("got %q", n.Params.Result)
	}
}

func TestSubscribeObjectFormRejectsBadParams(t *testing.T) {
	s, _ := historyServer(t, 10)
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 4096)
	for _, params := range []string{
		`{}`,
		`{"name":1}`,
		`{"name":"chat","args":{}}`,
		`{"name":"chat","resume":{"epoch":"x"}}`,
		`{"name":"chat","resume":{"epoch":"x","offset":-1}}`,
		`{"name":"chat","resume":{"epoch":"x","offset":1,"more":2}}`,
		`{"name":"chat","resume":"x:1"}`,
		`{"name":"chat","since":1}`,
		`{"name":"nope"}`,
	} {
		c.send(`{"jsonrpc":"2.0","method":"demo_subscribe","params":` + params + `,"id":7}`)
		v := c.recv(t)
		e, _ := v["error"].(map[string]any)
		if e == nil || e["code"] != float64(rpccore.CodeInvalidParams) {
			t.Fatalf("%s: answered %v, want -32602", params, v)
		}
	}
	// A source without history answers with no position, and a resume
	// there is plainly not recovered.
	plain := demoServer(t)
	c2, _, _ := servePeer(t, plain, rpccore.PeerConfig{}, 4096)
	a := subscribeObject(t, c2, &rpccore.Position{Epoch: "e", Offset: 1})
	if a.Position != nil || a.Recovered == nil || *a.Recovered {
		t.Fatalf("no-history resume answered %+v", a)
	}
}

// resumeCounter counts resume outcomes.
type resumeCounter struct {
	mu                   sync.Mutex
	recovered, notRecovd int
}

func (r *resumeCounter) ObserveCall(string, int, time.Duration) {}
func (r *resumeCounter) ObserveResume(ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ok {
		r.recovered++
	} else {
		r.notRecovd++
	}
}

func TestResumesAreObserved(t *testing.T) {
	hub := rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 5})
	obs := &resumeCounter{}
	s := demoServer(t, rpccore.WithHub(hub), rpccore.WithObserver(obs))
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 4096)
	head, _ := hub.Head(context.Background(), "demo.chat")
	subscribeObject(t, c, &head)
	subscribeObject(t, c, nil)
	subscribeObject(t, c, &rpccore.Position{Epoch: "gone", Offset: 1})
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.recovered != 1 || obs.notRecovd != 1 {
		t.Fatalf("recovered %d, not recovered %d; want 1 and 1", obs.recovered, obs.notRecovd)
	}
}

// racingHub publishes one message just before each history read, as a
// publisher on another goroutine may: the message reaches the follower
// live and is in the history it reads.
type racingHub struct {
	*rpccore.LocalHub
	n int
}

func (h *racingHub) History(ctx context.Context, topic string, after rpccore.Position) ([]rpccore.Message, bool, error) {
	_ = h.Publish(topic, rpccore.AppendString(nil, fmt.Sprint("raced ", h.n)))
	h.n++
	return h.LocalHub.History(ctx, topic, after)
}

func (h *racingHub) Head(ctx context.Context, topic string) (rpccore.Position, error) {
	_ = h.Publish(topic, rpccore.AppendString(nil, "before head"))
	return h.LocalHub.Head(ctx, topic)
}

func TestAMessageBothLiveAndInTheHistoryIsSentOnce(t *testing.T) {
	hub := &racingHub{LocalHub: rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 100})}
	s := demoServer(t, rpccore.WithHub(hub))
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 4096)
	head, _ := hub.LocalHub.Head(context.Background(), "demo.chat")
	publish(t, hub, 0, 2)
	a := subscribeObject(t, c, &head)
	if !*a.Recovered {
		t.Fatalf("answered %+v", a)
	}
	for _, want := range []string{"0", "1", "raced 0"} {
		if n := recvNote(t, c); n.Params.Result != want {
			t.Fatalf("got %q, want %q", n.Params.Result, want)
		}
	}
	// Without resume, a message published between the subscription and
	// the head is before the answered position: not sent.
	hub2 := &racingHub{LocalHub: rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 100})}
	c2, _, _ := servePeer(t, demoServer(t, rpccore.WithHub(hub2)), rpccore.PeerConfig{}, 4096)
	b := subscribeObject(t, c2, nil)
	publish(t, hub2, 0, 1)
	if n := recvNote(t, c2); n.Params.Result != "0" || b.Position.Offset != 1 {
		t.Fatalf("got %q after head %+v, want only the message after the head", n.Params.Result, b.Position)
	}
}

// floodingHub publishes a burst on its first history read, as a busy
// topic does while a resume reads: more than the follower keeps waiting.
type floodingHub struct {
	*rpccore.LocalHub
	burst int
	reads atomic.Int32
}

func (h *floodingHub) History(ctx context.Context, topic string, after rpccore.Position) ([]rpccore.Message, bool, error) {
	if h.reads.Add(1) == 1 {
		for i := range h.burst {
			_ = h.Publish(topic, rpccore.AppendString(nil, fmt.Sprint("burst ", i)))
		}
	}
	return h.LocalHub.History(ctx, topic, after)
}

func TestResumeReadsTheHistoryAgainWhenLiveMessagesOverflow(t *testing.T) {
	hub := &floodingHub{LocalHub: rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 1000}), burst: 50}
	s := demoServer(t, rpccore.WithHub(hub))
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{SendQueue: 16}, 4096)
	head, _ := hub.LocalHub.Head(context.Background(), "demo.chat")
	publish(t, hub, 0, 5)
	if a := subscribeObject(t, c, &head); !*a.Recovered {
		t.Fatalf("answered %+v", a)
	}
	var want []string
	for i := range 5 {
		want = append(want, fmt.Sprint(i))
	}
	for i := range 50 {
		want = append(want, fmt.Sprint("burst ", i))
	}
	for i, w := range want {
		if n := recvNote(t, c); n.Params.Result != w {
			t.Fatalf("notification %d is %q, want %q", i, n.Params.Result, w)
		}
	}
	if n := hub.reads.Load(); n != 2 {
		t.Fatalf("%d history reads; the burst overflowed what waits, so the history is read again", n)
	}
}

// brokenHub keeps history it cannot read now.
type brokenHub struct{ *rpccore.LocalHub }

func (brokenHub) History(context.Context, string, rpccore.Position) ([]rpccore.Message, bool, error) {
	return nil, false, errors.New("the broker is away")
}

func (brokenHub) Head(context.Context, string) (rpccore.Position, error) {
	return rpccore.Position{}, errors.New("the broker is away")
}

func TestAResumeThatCannotReadTheHistoryIsNotRecovered(t *testing.T) {
	hub := brokenHub{rpccore.NewLocalHubWithHistory(rpccore.HistoryLimits{MaxMessages: 10})}
	c, _, _ := servePeer(t, demoServer(t, rpccore.WithHub(hub)), rpccore.PeerConfig{}, 4096)
	a := subscribeObject(t, c, &rpccore.Position{Epoch: "e", Offset: 3})
	if a.Recovered == nil || *a.Recovered || a.Position != nil {
		t.Fatalf("answered %+v, want recovered false and no position", a)
	}
	publish(t, hub, 0, 1)
	if n := recvNote(t, c); n.Params.Result != "0" {
		t.Fatalf("live messages follow; got %q", n.Params.Result)
	}
}
