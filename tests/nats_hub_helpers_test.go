package tests

// nats_hub_helpers_test.go holds what the NATS hub tests share: hubs on
// the embedded server, mailboxes that record deliveries, and checks.

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	natshub "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
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
