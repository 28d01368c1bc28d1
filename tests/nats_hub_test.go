package tests

// nats_hub_test.go drives the NATS hub (caddymodule/hubs/nats) with an
// embedded NATS server: two hubs on one server are two Caddy nodes.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// natsWait bounds every wait of these tests.
const natsWait = 20 * time.Second

// newHub returns a hub named name on url; history nil keeps none.
func newHub(t *testing.T, url, prefix, name string, history *natshub.History) *natshub.Hub {
	t.Helper()
	h, err := natshub.New(natshub.Options{
		URLs: []string{url}, SubjectPrefix: prefix, Name: name, History: history,
		PublishTimeout: 2 * time.Second, MaxPending: 5000, ReconnectWait: 50 * time.Millisecond,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// histories are the two ways every cross-node test runs.
var histories = []struct {
	name    string
	history *natshub.History
}{
	{"core", nil},
	{"history", &natshub.History{MaxMsgs: 100000}},
}

// mailbox records what one subscriber gets.
type mailbox struct {
	mu     sync.Mutex
	msgs   []rpccore.Message
	notify chan struct{}
}

func newMailbox() *mailbox { return &mailbox{notify: make(chan struct{}, 1)} }

func (b *mailbox) deliver(m rpccore.Message) {
	b.mu.Lock()
	b.msgs = append(b.msgs, m)
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

func (b *mailbox) all() []rpccore.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]rpccore.Message(nil), b.msgs...)
}

// wait returns the messages once there are at least n.
func (b *mailbox) wait(t *testing.T, n int) []rpccore.Message {
	t.Helper()
	deadline := time.After(natsWait)
	for {
		if msgs := b.all(); len(msgs) >= n {
			return msgs
		}
		select {
		case <-b.notify:
		case <-deadline:
			t.Fatalf("got %d messages, want %d", len(b.all()), n)
		}
	}
}

// subscribe subscribes a new mailbox to topic on h.
func subscribe(t *testing.T, h *natshub.Hub, topic string) *mailbox {
	t.Helper()
	b := newMailbox()
	unsubscribe, err := h.Subscribe(topic, b.deliver)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unsubscribe)
	return b
}

// payloads returns the messages' payloads as Go strings.
func payloads(msgs []rpccore.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		if err := json.Unmarshal(m.Payload, &out[i]); err != nil {
			out[i] = "!" + string(m.Payload)
		}
	}
	return out
}

// quote returns s as a JSON string.
func quote(s string) []byte { return rpccore.AppendString(nil, s) }

// checkExactly reports unless got is want, in order.
func checkExactly(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") == strings.Join(want, ",") {
		return
	}
	seen := map[string]int{}
	for _, g := range got {
		seen[g]++
	}
	var missing, twice []string
	for _, w := range want {
		switch seen[w] {
		case 0:
			missing = append(missing, w)
		case 1:
		default:
			twice = append(twice, w)
		}
	}
	t.Errorf("%s: got %d messages, want %d; missing %v; more than once %v; first %v", what, len(got), len(want),
		head(missing), head(twice), head(got))
}

func head(s []string) []string { return s[:min(len(s), 12)] }

// series returns prefix0 ... prefix(n-1) after the first from.
func series(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(from+i)
	}
	return out
}

// checkPositions reports unless msgs carry stream positions of one epoch,
// growing.
func checkPositions(t *testing.T, msgs []rpccore.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Position.IsZero() || strings.HasPrefix(m.Position.Epoch, "local-") {
			t.Fatalf("message %d has position %+v, want one in the stream", i, m.Position)
		}
		if i > 0 && (m.Position.Epoch != msgs[0].Position.Epoch || m.Position.Offset <= msgs[i-1].Position.Offset) {
			t.Fatalf("message %d has position %+v after %+v", i, m.Position, msgs[i-1].Position)
		}
	}
}

func TestNATSHubCrossNodeDeliveryInOrder(t *testing.T) {
	for _, mode := range histories {
		t.Run(mode.name, func(t *testing.T) {
			n := startNATS(t)
			a := newHub(t, n.URL, "cross", "node-a", mode.history)
			b := newHub(t, n.URL, "cross", "node-b", mode.history)
			onA, onB := subscribe(t, a, "demo.chat"), subscribe(t, b, "demo.chat")
			const each = 300
			var wg sync.WaitGroup
			for _, p := range []struct {
				hub  *natshub.Hub
				name string
			}{{a, "a"}, {b, "b"}} {
				wg.Go(func() {
					for i := range each {
						if err := p.hub.Publish("demo.chat", quote(p.name+strconv.Itoa(i))); err != nil {
							t.Errorf("publish on node %s: %v", p.name, err)
							return
						}
					}
				})
			}
			wg.Wait()
			gotA, gotB := onA.wait(t, 2*each), onB.wait(t, 2*each)
			time.Sleep(100 * time.Millisecond) // nothing more may come
			for node, box := range map[string]*mailbox{"a": onA, "b": onB} {
				msgs := box.all()
				var fromA, fromB []string
				for _, p := range payloads(msgs) {
					if strings.HasPrefix(p, "a") {
						fromA = append(fromA, p)
					} else {
						fromB = append(fromB, p)
					}
				}
				checkExactly(t, "node "+node+" from a", fromA, series("a", 0, each))
				checkExactly(t, "node "+node+" from b", fromB, series("b", 0, each))
				if mode.history != nil {
					checkPositions(t, msgs)
				}
			}
			if mode.history != nil {
				checkExactly(t, "the order on node b against node a", payloads(gotB), payloads(gotA))
			}
		})
	}
}

// liveSubjects returns the topic subscriptions the named connection holds.
func liveSubjects(n *natsServer, name, prefix string) []string {
	var subs []string
	if c := n.conn(name); c != nil {
		for _, s := range c.Subs {
			if strings.HasPrefix(s, prefix+".l.") {
				subs = append(subs, s)
			}
		}
	}
	return subs
}

// eventually waits until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(natsWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNATSHubOneSubscriptionPerTopic(t *testing.T) {
	n := startNATS(t)
	a := newHub(t, n.URL, "fan", "node-a", &natshub.History{MaxMsgs: 1000})
	b := newHub(t, n.URL, "fan", "node-b", &natshub.History{MaxMsgs: 1000})
	const topics, perTopic = 20, 5
	var boxes [topics][perTopic]*mailbox
	var unsubs [topics][perTopic]func()
	for i := range topics {
		for j := range perTopic {
			boxes[i][j] = newMailbox()
			var err error
			if unsubs[i][j], err = a.Subscribe("topic "+strconv.Itoa(i), boxes[i][j].deliver); err != nil {
				t.Fatal(err)
			}
		}
	}
	if subs := liveSubjects(n, "node-a", "fan"); len(subs) != topics {
		t.Fatalf("node a holds %d topic subscriptions for %d topics with %d subscribers each: %v", len(subs), topics, perTopic, subs)
	}
	for i := range topics {
		if err := b.Publish("topic "+strconv.Itoa(i), quote("to "+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range topics {
		for j := range perTopic {
			got := payloads(boxes[i][j].wait(t, 1))
			checkExactly(t, fmt.Sprintf("subscriber %d of topic %d", j, i), got, []string{"to " + strconv.Itoa(i)})
		}
	}
	for j := range perTopic {
		if len(liveSubjects(n, "node-a", "fan")) != topics {
			t.Fatal("a topic subscription ended before its last subscriber left")
		}
		unsubs[0][j]()
	}
	eventually(t, "the topic's last subscriber's leaving ends its subscription", func() bool {
		return len(liveSubjects(n, "node-a", "fan")) == topics-1
	})
	for i := 1; i < topics; i++ {
		for j := range perTopic {
			unsubs[i][j]()
		}
	}
	eventually(t, "every subscription ends", func() bool { return len(liveSubjects(n, "node-a", "fan")) == 0 })
}

func TestNATSHubOddTopics(t *testing.T) {
	topics := []string{"", ".", "a..b", " ", "with space", "*", ">", "a.*.>", "%", "ü.日本", "tab\t", "demo.chat"}
	for _, mode := range histories {
		t.Run(mode.name, func(t *testing.T) {
			n := startNATS(t)
			a := newHub(t, n.URL, "odd", "node-a", mode.history)
			b := newHub(t, n.URL, "odd", "node-b", mode.history)
			boxes := make([]*mailbox, len(topics))
			for i, topic := range topics {
				boxes[i] = subscribe(t, a, topic)
			}
			for i, topic := range topics {
				if err := b.Publish(topic, quote("#"+strconv.Itoa(i))); err != nil {
					t.Fatalf("publish on %q: %v", topic, err)
				}
			}
			for i, topic := range topics {
				checkExactly(t, fmt.Sprintf("topic %q", topic), payloads(boxes[i].wait(t, 1)), []string{"#" + strconv.Itoa(i)})
			}
			time.Sleep(100 * time.Millisecond)
			for i, topic := range topics {
				if got := payloads(boxes[i].all()); len(got) != 1 {
					t.Errorf("topic %q got %v", topic, got)
				}
			}
			if mode.history == nil {
				return
			}
			epoch := boxes[0].all()[0].Position.Epoch
			for i, topic := range topics {
				msgs, ok, err := a.History(t.Context(), topic, rpccore.Position{Epoch: epoch})
				if err != nil || !ok {
					t.Fatalf("History of %q: ok %v, %v", topic, ok, err)
				}
				checkExactly(t, fmt.Sprintf("the history of %q", topic), payloads(msgs), []string{"#" + strconv.Itoa(i)})
			}
		})
	}
}

// pipe is a rpccore.MessageConn in memory; the test is the client.
type pipe struct {
	in     chan []byte
	out    chan []byte
	closed chan struct{}
	once   sync.Once
}

func newPipe() *pipe {
	return &pipe{in: make(chan []byte, 16), out: make(chan []byte, 8192), closed: make(chan struct{})}
}

func (p *pipe) ReadMessage(ctx context.Context, dst []byte) ([]byte, error) {
	select {
	case m := <-p.in:
		return append(dst, m...), nil
	case <-p.closed:
		return nil, errors.New("closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipe) WriteMessage(ctx context.Context, msg []byte) error {
	select {
	case p.out <- append([]byte(nil), msg...):
		return nil
	case <-p.closed:
		return errors.New("closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipe) Flush(context.Context) error { return nil }

func (p *pipe) close() { p.once.Do(func() { close(p.closed) }) }

// rpcClient is one connection to a server that follows a hub.
type rpcClient struct {
	t    *testing.T
	pipe *pipe
	done chan error
	once sync.Once
}

// connect serves a new connection on srv.
func connect(t *testing.T, srv *rpccore.Server) *rpcClient {
	c := &rpcClient{t: t, pipe: newPipe(), done: make(chan error, 1)}
	go func() { c.done <- srv.ServePeer(context.Background(), c.pipe, rpccore.PeerConfig{SendQueue: 4096}) }()
	t.Cleanup(c.close)
	return c
}

func (c *rpcClient) close() {
	c.once.Do(func() {
		c.pipe.close()
		select {
		case <-c.done:
		case <-time.After(natsWait):
			c.t.Error("the connection did not end")
		}
	})
}

// recv returns the next message the server sends.
func (c *rpcClient) recv() map[string]json.RawMessage {
	c.t.Helper()
	select {
	case m := <-c.pipe.out:
		var v map[string]json.RawMessage
		if err := json.Unmarshal(m, &v); err != nil {
			c.t.Fatalf("the server sent %s: %v", m, err)
		}
		return v
	case <-time.After(natsWait):
		c.t.Fatal("nothing from the server")
		return nil
	}
}

// subscribeAnswer is the object answer of demo_subscribe.
type subscribeAnswer struct {
	Subscription string            `json:"subscription"`
	Position     *rpccore.Position `json:"position"`
	Recovered    *bool             `json:"recovered"`
}

// subscribeChat subscribes to the demo's chat, resuming from resume when
// it is set.
func (c *rpcClient) subscribeChat(resume *rpccore.Position) subscribeAnswer {
	c.t.Helper()
	params := map[string]any{"name": "chat"}
	if resume != nil {
		params["resume"] = resume
	}
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "demo_subscribe", "params": params})
	c.pipe.in <- req
	answer := c.recv()
	var a subscribeAnswer
	if err := json.Unmarshal(answer["result"], &a); err != nil || a.Subscription == "" {
		c.t.Fatalf("demo_subscribe answered %s", answer["error"])
	}
	return a
}

// notification is one chat notification.
type notification struct {
	text     string
	position rpccore.Position
}

// notifications returns the next n notifications.
func (c *rpcClient) notifications(n int) []notification {
	c.t.Helper()
	out := make([]notification, 0, n)
	for len(out) < n {
		m := c.recv()
		var params struct {
			Result   string           `json:"result"`
			Position rpccore.Position `json:"position"`
		}
		if err := json.Unmarshal(m["params"], &params); err != nil {
			c.t.Fatalf("not a notification: %v", m)
		}
		out = append(out, notification{params.Result, params.Position})
	}
	return out
}

// texts returns the notifications' texts.
func texts(ns []notification) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.text
	}
	return out
}

// demoServer returns a server with the demo service following hub.
func demoServer(t *testing.T, hub rpccore.Hub) *rpccore.Server {
	srv := rpccore.NewServer(rpccore.WithHub(hub))
	if err := demo.Register(srv); err != nil {
		t.Fatal(err)
	}
	return srv
}

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

func TestNATSHubCaddyfileAdapts(t *testing.T) {
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(`:8080 {
	jsonrpc {
		service demo
		hub nats {
			url nats://10.0.0.1:4222 nats://10.0.0.2:4222
			subject_prefix acme
			credentials /etc/caddy/hub.creds
			tls
			history {
				max_msgs 5000
				max_age 10m
			}
			storage memory
			max_pending 200
		}
	}
}
`), nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("adapting: %v, %v", err, warnings)
	}
	var config any
	if err := json.Unmarshal(adapted, &config); err != nil {
		t.Fatal(err)
	}
	handler := findHandler(config, "jsonrpc")
	got, _ := json.Marshal(handler["hub"])
	want := `{"credentials":"/etc/caddy/hub.creds","history":{"max_age":600000000000,"max_msgs":5000},"hub":"nats",` +
		`"max_pending":200,"storage":"memory","subject_prefix":"acme","tls":{},"urls":["nats://10.0.0.1:4222","nats://10.0.0.2:4222"]}`
	if string(got) != want {
		t.Errorf("the hub adapts to\n%s\nwant\n%s", got, want)
	}
}
