package tests

// nodes_test.go runs two bin/caddy nodes that share their subscriptions
// through a real NATS server: broadcast across the nodes, clients that
// resume without loss after a dropped connection or a killed node, NATS
// restarted while publishing, a resume the history cannot serve, and
// go-ethereum's client subscribing unchanged.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
)

// nodeCaddyfile is one node: the demo over HTTPS and WebSocket at /rpc and
// over TCP, both on the same NATS hub (so they share one hub).
const nodeCaddyfile = `{
	admin localhost:ADMIN
	default_bind 127.0.0.1
	skip_install_trust
	auto_https disable_redirects
	http_port HTTP
	https_port HTTPS
	jsonrpc {
		listen tcp/127.0.0.1:TCP {
			service demo
			HUB
		}
	}
}

https://localhost:HTTPS {
	tls internal
	jsonrpc /rpc {
		service demo
		HUB
	}
}
`

// natsHub is the hub block of the nodes.
func natsHub(url string, history int) string {
	return `hub nats {
				url ` + url + `
				subject_prefix nodes_test
				name test-node
				publish_timeout 2s
				history {
					max_msgs ` + strconv.Itoa(history) + `
					max_age 10m
				}
			}`
}

// node is one bin/caddy of the pair.
type node struct {
	name, tcp, wss, admin string
	caddyfile             string
	server                *exampleServer
}

// startNode starts a bin/caddy whose hub is hub. With joined, it waits
// until the node's hub has reached NATS and its stream: until a
// subscription's answer carries a position of the stream.
func startNode(t *testing.T, name, hub string, joined bool) *node {
	t.Helper()
	admin, https, tcp := freePort(t), freePort(t), freePort(t)
	n := &node{
		name:  name,
		admin: fmt.Sprintf("http://localhost:%d", admin),
		tcp:   fmt.Sprintf("127.0.0.1:%d", tcp),
		wss:   fmt.Sprintf("wss://localhost:%d/rpc", https),
		caddyfile: strings.NewReplacer("ADMIN", fmt.Sprint(admin), "HTTPS", fmt.Sprint(https),
			"HTTP", fmt.Sprint(freePort(t)), "TCP", fmt.Sprint(tcp), "HUB", hub).Replace(nodeCaddyfile),
	}
	n.server = startCaddy(t, n.caddyfile, n.admin, func() error {
		c, err := net.Dial("tcp", n.tcp)
		if err != nil {
			return err
		}
		defer c.Close()
		if !joined {
			return nil
		}
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write([]byte(streamCall("demo_subscribe", `{"name":"chat"}`, 1) + "\n")); err != nil {
			return err
		}
		var answer struct {
			Result nodeAnswer `json:"result"`
		}
		if err := json.NewDecoder(c).Decode(&answer); err != nil {
			return err
		}
		if p := answer.Result.Position; len(p) == 0 || strings.Contains(string(p), `"local-`) {
			return fmt.Errorf("the hub has not reached NATS yet (position %s)", p)
		}
		return nil
	})
	return n
}

// kill ends the node at once, as a crash would.
func (n *node) kill() {
	_ = n.server.cmd.Process.Kill()
	<-n.server.exited
}

// chatClient is a stream connection to a node that subscribes to the chat
// and publishes.
type chatClient struct {
	*streamClient
	t      *testing.T
	nextID int
	sub    string
}

func dialChat(t *testing.T, n *node) *chatClient {
	return &chatClient{streamClient: dialStream(t, "tcp", n.tcp), t: t, nextID: 1}
}

// nodeNote is a chat notification as a client reads it.
type nodeNote struct {
	Method string `json:"method"`
	Params struct {
		Subscription string          `json:"subscription"`
		Result       string          `json:"result"`
		Position     json.RawMessage `json:"position"`
	} `json:"params"`
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// read reads the next message.
func (c *chatClient) read() nodeNote {
	c.t.Helper()
	var n nodeNote
	line := c.line(c.t)
	if err := json.Unmarshal([]byte(line), &n); err != nil {
		c.t.Fatalf("%q: %v", line, err)
	}
	return n
}

// call sends a call and returns its answer, keeping the notifications that
// come before it in *early.
func (c *chatClient) call(method, params string, early *[]nodeNote) nodeNote {
	c.t.Helper()
	id := c.nextID
	c.nextID++
	c.send(c.t, streamCall(method, params, id)+"\n")
	for {
		n := c.read()
		if string(n.ID) == strconv.Itoa(id) {
			return n
		}
		if n.Method == "" || early == nil {
			c.t.Fatalf("waiting for answer %d, got %+v", id, n)
		}
		*early = append(*early, n)
	}
}

// nodeAnswer is the object answer to a subscribe with the object form.
type nodeAnswer struct {
	Subscription string          `json:"subscription"`
	Position     json.RawMessage `json:"position"`
	Recovered    *bool           `json:"recovered"`
}

// subscribe subscribes to the chat with the object form, resuming from
// resume when it is not empty.
func (c *chatClient) subscribe(resume json.RawMessage, early *[]nodeNote) nodeAnswer {
	c.t.Helper()
	params := `{"name":"chat"}`
	if resume != nil {
		params = `{"name":"chat","resume":` + string(resume) + `}`
	}
	n := c.call("demo_subscribe", params, early)
	var a nodeAnswer
	if err := json.Unmarshal(n.Result, &a); err != nil || a.Subscription == "" {
		c.t.Fatalf("subscribe answered %s %s", n.Result, n.Error)
	}
	c.sub = a.Subscription
	return a
}

// publish publishes message through the client's node and reports
// whether the node answered true.
func (c *chatClient) publish(message string, early *[]nodeNote) bool {
	c.t.Helper()
	n := c.call("demo_publish", `["chat",`+strconv.Quote(message)+`]`, early)
	return string(n.Result) == "true"
}

// expect reads notifications until it has want, in order, and fails on
// anything else.
func (c *chatClient) expect(want []string) (last json.RawMessage) {
	c.t.Helper()
	for i, w := range want {
		n := c.read()
		if n.Params.Result != w {
			c.t.Fatalf("nodeNote %d: got %q, want %q (every message once, in order)", i, n.Params.Result, w)
		}
		last = n.Params.Position
	}
	return last
}

// numbered returns the messages "<prefix>from" to "<prefix>to-1".
func numbered(prefix string, from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out
}

// twoNodes starts NATS and two nodes on it.
func twoNodes(t *testing.T, history int) (*natsServer, *node, *node) {
	t.Helper()
	caddyBinary(t)
	ns := startNATS(t)
	hub := natsHub(ns.URL, history)
	return ns, startNode(t, "a", hub, true), startNode(t, "b", hub, true)
}

func TestNodesBroadcastAcrossNATS(t *testing.T) {
	_, a, b := twoNodes(t, 10000)
	subA, subB := dialChat(t, a), dialChat(t, b)
	subA.subscribe(nil, nil)
	subB.subscribe(nil, nil)
	pubA, pubB := dialChat(t, a), dialChat(t, b)
	for i := range 100 {
		if !pubA.publish("a"+strconv.Itoa(i), nil) || !pubB.publish("b"+strconv.Itoa(i), nil) {
			t.Fatal("publish refused")
		}
	}
	for _, sub := range []*chatClient{subA, subB} {
		var fromA, fromB []string
		for range 200 {
			n := sub.read()
			if strings.HasPrefix(n.Params.Result, "a") {
				fromA = append(fromA, n.Params.Result)
			} else {
				fromB = append(fromB, n.Params.Result)
			}
			if len(n.Params.Position) == 0 {
				t.Fatalf("a nodeNote with history carries its position: %+v", n)
			}
		}
		if strings.Join(fromA, ",") != strings.Join(numbered("a", 0, 100), ",") ||
			strings.Join(fromB, ",") != strings.Join(numbered("b", 0, 100), ",") {
			t.Fatalf("each publisher's messages arrive on every node, in order:\n%v\n%v", fromA, fromB)
		}
	}
}

func TestNodesResumeADroppedClientWithoutLoss(t *testing.T) {
	_, a, b := twoNodes(t, 10000)
	sub := dialChat(t, a)
	sub.subscribe(nil, nil)
	pub := dialChat(t, b)
	for i := range 10 {
		pub.publish("m"+strconv.Itoa(i), nil)
	}
	last := sub.expect(numbered("m", 0, 10))
	sub.Close() // dropped while the next 1,000 are published
	for i := 10; i < 1010; i++ {
		if !pub.publish("m"+strconv.Itoa(i), nil) {
			t.Fatal("publish refused")
		}
	}
	again := dialChat(t, a)
	if got := again.subscribe(last, nil); got.Recovered == nil || !*got.Recovered {
		t.Fatalf("resume answered %+v, want recovered", got)
	}
	pub.publish("live", nil)
	again.expect(append(numbered("m", 10, 1010), "live"))
}

func TestNodesResumeOnTheOtherNodeAfterAKill(t *testing.T) {
	_, a, b := twoNodes(t, 10000)
	sub := dialChat(t, a)
	sub.subscribe(nil, nil)
	pub := dialChat(t, b)
	pub.publish("m0", nil)
	last := sub.expect([]string{"m0"})
	a.kill()
	for i := 1; i < 200; i++ {
		pub.publish("m"+strconv.Itoa(i), nil)
	}
	moved := dialChat(t, b)
	if got := moved.subscribe(last, nil); got.Recovered == nil || !*got.Recovered {
		t.Fatalf("resume on the other node answered %+v", got)
	}
	moved.expect(numbered("m", 1, 200))
}

func TestNodesResumeBeyondTheHistoryIsNotRecovered(t *testing.T) {
	_, a, b := twoNodes(t, 10)
	sub := dialChat(t, a)
	first := sub.subscribe(nil, nil)
	sub.Close()
	pub := dialChat(t, b)
	for i := range 50 {
		pub.publish("m"+strconv.Itoa(i), nil)
	}
	again := dialChat(t, a)
	got := again.subscribe(first.Position, nil)
	if got.Recovered == nil || *got.Recovered {
		t.Fatalf("a resume from before the 10 kept answered %+v, want recovered false", got)
	}
	pub.publish("live", nil)
	again.expect([]string{"live"}) // live only: no partial replay
}

func TestNodesKeepEveryAcknowledgedPublishAcrossANATSRestart(t *testing.T) {
	ns, a, b := twoNodes(t, 10000)
	sub := dialChat(t, b)
	sub.subscribe(nil, nil)
	pub := dialChat(t, a)
	var (
		mu    sync.Mutex
		acked []string
	)
	done := make(chan struct{})
	var restarted sync.WaitGroup
	var early []nodeNote
	go func() {
		defer close(done)
		for i := 0; i < 400; i++ {
			msg := "m" + strconv.Itoa(i)
			if pub.publish(msg, &early) {
				mu.Lock()
				acked = append(acked, msg)
				mu.Unlock()
			}
			if i == 150 { // NATS goes away and comes back while publishing goes on
				restarted.Add(1)
				go func() {
					defer restarted.Done()
					ns.restart()
				}()
			}
		}
	}()
	<-done
	restarted.Wait()
	pub.publish("last", nil) // after NATS is back: reaches b once b's hub is connected
	// What b's subscriber gets: every acknowledged message, in order, none
	// twice (a refused one may or may not come, once).
	seen := map[string]bool{}
	var got []string
	for deadline := time.Now().Add(20 * time.Second); !seen["last"]; {
		if time.Now().After(deadline) {
			t.Fatalf("\"last\" never came; got %d messages", len(got))
		}
		n := sub.read()
		if seen[n.Params.Result] {
			t.Fatalf("%q came twice", n.Params.Result)
		}
		seen[n.Params.Result] = true
		got = append(got, n.Params.Result)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, m := range acked {
		if !seen[m] {
			t.Fatalf("acknowledged %q never reached the other node (%d acknowledged, %d received)", m, len(acked), len(got))
		}
	}
	prev := -1
	for _, m := range got[:len(got)-1] {
		i, _ := strconv.Atoi(strings.TrimPrefix(m, "m"))
		if i <= prev {
			t.Fatalf("out of order: %q after m%d", m, prev)
		}
		prev = i
	}
	t.Logf("%d of 400 acknowledged across the restart, %d delivered", len(acked), len(got)-1)
}

func TestNodesStartWithoutNATSAndJoinWhenItComes(t *testing.T) {
	caddyBinary(t)
	ns := newNATS(t)
	hub := natsHub(ns.URL, 1000)
	a, b := startNode(t, "a", hub, false), startNode(t, "b", hub, false)
	subA := dialChat(t, a)
	subA.subscribe(nil, nil)
	pubA := dialChat(t, a)
	pubA.publish("alone", nil) // local delivery works without NATS
	subA.expect([]string{"alone"})
	ns.start()
	subB := dialChat(t, b)
	subB.subscribe(nil, nil)
	deadline := time.Now().Add(20 * time.Second)
	for { // once both hubs are connected, a's publishes reach b
		ok := pubA.publish("across", nil)
		if n := subB.readWithin(500 * time.Millisecond); ok && n != nil && n.Params.Result == "across" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the nodes never joined through NATS")
		}
	}
}

// readWithin reads a nodeNote, or returns nil after d.
func (c *chatClient) readWithin(d time.Duration) *nodeNote {
	c.SetReadDeadline(time.Now().Add(d))
	line, err := c.lines.ReadString('\n')
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return nil
		}
		c.t.Fatal(err)
	}
	var n nodeNote
	if err := json.Unmarshal([]byte(line), &n); err != nil {
		c.t.Fatal(err)
	}
	return &n
}

func TestGethClientSubscribesThroughNATS(t *testing.T) {
	_, a, b := twoNodes(t, 100)
	g := gethClient(t, a.wss)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ch := make(chan string, 16)
	sub, err := g.Subscribe(ctx, "demo", ch, "chat")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	pub := dialChat(t, b)
	for _, m := range []string{"one", "two"} {
		pub.publish(m, nil)
		select {
		case got := <-ch:
			if got != m {
				t.Fatalf("got %q, want %q", got, m)
			}
		case err := <-sub.Err():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatal("go-ethereum's client got nothing")
		}
	}
}

func TestOurClientResumesOnAnotherNodeAfterAKill(t *testing.T) {
	_, a, b := twoNodes(t, 10000)
	lb := startCutter(t, a.tcp) // a load balancer in front of the nodes
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := rpcclient.Dial(ctx, "tcp://"+lb.l.Addr().String(), rpcclient.WithBackoff(50*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan string, 4096)
	sub, err := c.Subscribe(ctx, "demo", got, "chat")
	if err != nil {
		t.Fatal(err)
	}
	pub := dialChat(t, b)
	for i := range 100 {
		pub.publish("m"+strconv.Itoa(i), nil)
	}
	for i := range 100 {
		if m := <-got; m != "m"+strconv.Itoa(i) {
			t.Fatalf("got %q, want m%d", m, i)
		}
	}
	a.kill() // its clients' connections end; the balancer sends them to b
	lb.retarget(b.tcp)
	lb.cut()
	for i := 100; i < 600; i++ {
		pub.publish("m"+strconv.Itoa(i), nil)
	}
	for i := 100; i < 600; i++ {
		select {
		case m := <-got:
			if m != "m"+strconv.Itoa(i) {
				t.Fatalf("got %q, want m%d: every message once, in order, across the move", m, i)
			}
		case <-sub.Gap():
			t.Fatal("the client resumed on the other node without loss: no gap")
		case <-ctx.Done():
			t.Fatalf("waiting for m%d", i)
		}
	}
	select {
	case <-sub.Gap():
		t.Fatal("no gap was expected")
	default:
	}
}
