package tests

// natscluster_clients_test.go holds the chat clients that the cluster
// tests run on goroutines of their own while NATS servers fail: a
// publisher that counts which publishes its node acknowledged, and a
// subscriber that keeps every notification and can drop its connection
// and resume on any node. They return errors instead of failing the test,
// as only the test's goroutine may.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// callWait bounds the wait for an answer: a resume may wait four
// publish_timeouts for the stream (12s in these tests).
const callWait = 20 * time.Second

// tryCall sends a call on c and returns its answer, handing the
// notifications that come before it to early.
func (c *chatClient) tryCall(method, params string, early func(nodeNote)) (nodeNote, error) {
	id := c.nextID
	c.nextID++
	_ = c.SetWriteDeadline(time.Now().Add(requestTimeout))
	if _, err := io.WriteString(c, streamCall(method, params, id)+"\n"); err != nil {
		return nodeNote{}, err
	}
	for {
		n, err := c.tryRead(callWait)
		if err != nil {
			return n, fmt.Errorf("waiting for the answer to %s: %w", method, err)
		}
		if string(n.ID) == strconv.Itoa(id) {
			return n, nil
		}
		if n.Method == "" || early == nil {
			return n, fmt.Errorf("waiting for the answer to %s, got %+v", method, n)
		}
		early(n)
	}
}

// tryRead reads the next message, waiting d at most.
func (c *chatClient) tryRead(d time.Duration) (nodeNote, error) {
	var n nodeNote
	_ = c.SetReadDeadline(time.Now().Add(d))
	line, err := c.lines.ReadString('\n')
	if err != nil {
		return n, err
	}
	if err := json.Unmarshal([]byte(line), &n); err != nil {
		return n, fmt.Errorf("%q: %w", line, err)
	}
	return n, nil
}

// chatPublisher publishes "<prefix><i>" for i = 0, 1, ... on one connection
// to a node, one call at a time, until stopped.
type chatPublisher struct {
	prefix string
	c      *chatClient
	stop   chan struct{}
	done   chan struct{}
	acked  []int // the numbers the node answered true for
	sent   int   // how many it published
	err    error // why it stopped early
}

// startPublisher starts publishing through n, one call every pace.
func startPublisher(t *testing.T, n *node, prefix string, pace time.Duration) *chatPublisher {
	p := &chatPublisher{prefix: prefix, c: dialChat(t, n), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for i := 0; ; i++ {
			select {
			case <-p.stop:
				return
			case <-time.After(pace):
			}
			a, err := p.c.tryCall("demo_publish", `["chat",`+strconv.Quote(prefix+strconv.Itoa(i))+`]`, nil)
			if err != nil {
				p.err = err
				return
			}
			p.sent++
			if string(a.Result) == "true" {
				p.acked = append(p.acked, i)
			}
		}
	}()
	return p
}

// finish stops the publisher and fails the test if it could not go on.
func (p *chatPublisher) finish(t *testing.T) {
	t.Helper()
	close(p.stop)
	<-p.done
	if p.err != nil {
		t.Fatalf("publisher %s stopped after %d publishes: %v", p.prefix, p.sent, p.err)
	}
}

// chatSubscriber reads the chat on one connection at a time, keeping every
// notification in order across the connections it resumed on.
type chatSubscriber struct {
	t       *testing.T
	name    string
	mu      sync.Mutex
	got     []nodeNote // every notification, in the order they came
	c       *chatClient
	reading chan struct{} // closed when the current connection's reader ends
	resumes []nodeAnswer  // the answers to its resumes
	err     error         // the first unexpected failure
}

// startSubscriber subscribes a new subscriber on n and starts reading.
func startSubscriber(t *testing.T, name string, n *node) *chatSubscriber {
	t.Helper()
	s := &chatSubscriber{t: t, name: name}
	c := dialChat(t, n)
	if _, err := s.subscribeOn(c, nil); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// subscribeOn subscribes on c, resuming from resume when it is not nil,
// and starts reading.
func (s *chatSubscriber) subscribeOn(c *chatClient, resume json.RawMessage) (nodeAnswer, error) {
	params := `{"name":"chat"}`
	if resume != nil {
		params = `{"name":"chat","resume":` + string(resume) + `}`
	}
	var a nodeAnswer
	n, err := c.tryCall("demo_subscribe", params, s.keep)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(n.Result, &a); err != nil || a.Subscription == "" {
		return a, fmt.Errorf("subscribe answered %s %s", n.Result, n.Error)
	}
	s.mu.Lock()
	s.c, s.reading = c, make(chan struct{})
	if resume != nil {
		s.resumes = append(s.resumes, a)
	}
	reading := s.reading
	s.mu.Unlock()
	go func() {
		defer close(reading)
		for {
			n, err := c.tryRead(time.Minute)
			if err != nil {
				return // the connection dropped, or the test ended
			}
			if n.Method == "" {
				s.fail(fmt.Errorf("an answer among the notifications: %+v", n))
				return
			}
			s.keep(n)
		}
	}()
	return a, nil
}

// keep adds a notification.
func (s *chatSubscriber) keep(n nodeNote) {
	s.mu.Lock()
	s.got = append(s.got, n)
	s.mu.Unlock()
}

// fail notes the first failure.
func (s *chatSubscriber) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = fmt.Errorf("%s: %w", s.name, err)
	}
	s.mu.Unlock()
}

// drop closes the subscriber's connection, as a client losing it, and
// returns the position of the last notification it read.
func (s *chatSubscriber) drop() json.RawMessage {
	s.mu.Lock()
	c, reading := s.c, s.reading
	s.mu.Unlock()
	c.Close()
	<-reading
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.got) == 0 {
		return nil
	}
	return s.got[len(s.got)-1].Params.Position
}

// resume subscribes again on n from last, as a client that lost its
// connection. Safe on any goroutine; a failure is kept for check.
func (s *chatSubscriber) resume(n *node, last json.RawMessage) {
	c, err := dialChatErr(s.t, n)
	if err != nil {
		s.fail(err)
		return
	}
	start := time.Now()
	a, err := s.subscribeOn(c, last)
	if err != nil {
		s.fail(fmt.Errorf("resuming from %s on node %s: %w", last, n.name, err))
		return
	}
	s.t.Logf("%s: resumed on node %s from %s in %s, recovered %s", s.name, n.name, last,
		time.Since(start).Round(time.Millisecond), recoveredOf(a))
}

// recoveredOf returns a resume's recovered member as text.
func recoveredOf(a nodeAnswer) string {
	if a.Recovered == nil {
		return "absent"
	}
	return strconv.FormatBool(*a.Recovered)
}

// dialChatErr is dialChat for any goroutine.
func dialChatErr(t *testing.T, n *node) (*chatClient, error) {
	c, err := net.Dial("tcp", n.tcp)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	return &chatClient{streamClient: &streamClient{Conn: c, lines: bufio.NewReaderSize(c, 64<<10)}, t: t, nextID: 1}, nil
}

// messages returns the notifications' messages so far.
func (s *chatSubscriber) messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.got))
	for i, n := range s.got {
		out[i] = n.Params.Result
	}
	return out
}

// has reports whether the subscriber got every acknowledged publish of
// every publisher.
func (s *chatSubscriber) has(pubs []*chatPublisher) bool {
	seen := map[string]bool{}
	for _, m := range s.messages() {
		seen[m] = true
	}
	for _, p := range pubs {
		for _, i := range p.acked {
			if !seen[p.prefix+strconv.Itoa(i)] {
				return false
			}
		}
	}
	return true
}

// check fails the test unless the subscriber got every acknowledged
// publish exactly once, each publisher's in order, every one with a
// position of the stream, and every resume recovered.
func (s *chatSubscriber) check(pubs []*chatPublisher) {
	t := s.t
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		t.Error(s.err)
	}
	for _, a := range s.resumes {
		if a.Recovered == nil || !*a.Recovered {
			t.Errorf("%s: a resume answered recovered %s (position %s), want true", s.name, recoveredOf(a), a.Position)
		}
	}
	last := map[string]int{}
	for _, p := range pubs {
		last[p.prefix] = -1
	}
	for i, n := range s.got {
		if strings.Contains(string(n.Params.Position), `"local-`) {
			t.Errorf("%s: notification %d (%s) has a local position %s", s.name, i, n.Params.Result, n.Params.Position)
		}
		m := n.Params.Result
		prefix := strings.TrimRight(m, "0123456789")
		num, err := strconv.Atoi(m[len(prefix):])
		prev, ok := last[prefix]
		if err != nil || !ok {
			t.Errorf("%s: notification %d is %q, no publisher's", s.name, i, m)
			continue
		}
		if num <= prev {
			t.Errorf("%s: %q after %s%d: every message once, each publisher's in order", s.name, m, prefix, prev)
		}
		last[prefix] = num
	}
	seen := map[string]bool{}
	for _, n := range s.got {
		seen[n.Params.Result] = true
	}
	for _, p := range pubs {
		for _, i := range p.acked {
			if m := p.prefix + strconv.Itoa(i); !seen[m] {
				t.Errorf("%s: the acknowledged %q never came (%d notifications)", s.name, m, len(s.got))
				break
			}
		}
	}
}
