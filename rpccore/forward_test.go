package rpccore_test

// forward_test.go covers the forwarder seam: which calls a Forwarder takes,
// how a batch's calls are grouped, run and put back in order, and the
// limits, gate, filter and peers around them.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// recorder is a Forwarder that answers each call with the method's name
// and params ("a_1 [1]") and records what it was handed.
type recorder struct {
	mu     sync.Mutex
	groups [][]rpccore.ForwardedCall // copies of the calls of each Forward
	answer func(c *rpccore.ForwardedCall)
	before func(ctx context.Context) // runs before answering
}

func (r *recorder) Forward(ctx context.Context, calls []rpccore.ForwardedCall) {
	if r.before != nil {
		r.before(ctx)
	}
	got := make([]rpccore.ForwardedCall, len(calls))
	for i, c := range calls {
		got[i] = c
		got[i].Params = append([]byte(nil), c.Params...)
		if c.Params == nil {
			got[i].Params = nil
		}
	}
	r.mu.Lock()
	r.groups = append(r.groups, got)
	r.mu.Unlock()
	for i := range calls {
		c := &calls[i]
		if r.answer != nil {
			r.answer(c)
			continue
		}
		c.Result = rpccore.AppendString(nil, c.Method+" "+string(c.Params))
	}
}

// seen returns the methods of each Forward, in the order they ran.
func (r *recorder) seen() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]string
	for _, g := range r.groups {
		var names []string
		for _, c := range g {
			name := c.Method
			if c.Notification {
				name += "!"
			}
			names = append(names, name)
		}
		out = append(out, names)
	}
	return out
}

// forwardingServer has the demo methods, a_* forwarded to a and b_* to b.
func forwardingServer(t *testing.T, a, b rpccore.Forwarder, opts ...rpccore.Option) *rpccore.Server {
	t.Helper()
	s := demoServer(t, opts...)
	if err := s.RegisterForwarder([]string{"a_*", "subtract"}, a); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterForwarder([]string{"b_*", "a_*"}, b); err != nil {
		t.Fatal(err)
	}
	return s
}

func process(s *rpccore.Server, doc string) string {
	return string(s.Process(context.Background(), []byte(doc), nil))
}

func TestForwardSingleCalls(t *testing.T) {
	a, b := &recorder{}, &recorder{}
	s := forwardingServer(t, a, b)
	tests := []struct{ name, doc, want string }{
		{"params and id echoed from the request", `{"jsonrpc":"2.0","method":"a_x","params":[1, 2],"id":"k1"}`,
			`{"jsonrpc":"2.0","result":"a_x [1, 2]","id":"k1"}`},
		{"named params", `{"jsonrpc":"2.0","method":"b_y","params":{"n":1},"id":2}`,
			`{"jsonrpc":"2.0","result":"b_y {\"n\":1}","id":2}`},
		{"no params", `{"jsonrpc":"2.0","method":"b_y","id":3}`, `{"jsonrpc":"2.0","result":"b_y ","id":3}`},
		{"an escaped name is unescaped", `{"jsonrpc":"2.0","method":"a\u005fz","id":4}`,
			`{"jsonrpc":"2.0","result":"a_z ","id":4}`},
		{"a local method wins over a pattern", `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":5}`,
			`{"jsonrpc":"2.0","result":19,"id":5}`},
		{"no pattern matches", `{"jsonrpc":"2.0","method":"c_x","id":6}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":6}`},
		{"a notification", `{"jsonrpc":"2.0","method":"a_n","params":[7]}`, ``},
	}
	for _, tt := range tests {
		if got := process(s, tt.doc); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	if got, want := fmt.Sprint(a.seen()), "[[a_x] [a_z] [a_n!]]"; got != want {
		t.Errorf("a was handed %s, want %s (the first matching forwarder takes a name)", got, want)
	}
	if got, want := fmt.Sprint(b.seen()), "[[b_y] [b_y]]"; got != want {
		t.Errorf("b was handed %s, want %s", got, want)
	}
	if p := a.groups[2][0].Params; string(p) != "[7]" {
		t.Errorf("the notification's params: %s", p)
	}
	if p := b.groups[1][0].Params; p != nil {
		t.Errorf("params of a call without them: %q, want nil", p)
	}
}

func TestForwardBatchGroupsByForwarderInRequestOrder(t *testing.T) {
	a, b := &recorder{}, &recorder{}
	s := forwardingServer(t, a, b)
	doc := `[
		{"jsonrpc":"2.0","method":"a_1","params":[1],"id":1},
		{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":2},
		{"jsonrpc":"2.0","method":"b_1","id":3},
		{"jsonrpc":"2.0","method":"a_2","params":[2]},
		{"jsonrpc":"2.0","method":"nope","id":4},
		{"jsonrpc":"2.0","method":"b_2","params":{"x":true},"id":5},
		{"jsonrpc":"2.0","method":"a_3","id":6},
		{"jsonrpc":"2.0","method":1,"id":7}
	]`
	want := `[{"jsonrpc":"2.0","result":"a_1 [1]","id":1},` +
		`{"jsonrpc":"2.0","result":2,"id":2},` +
		`{"jsonrpc":"2.0","result":"b_1 ","id":3},` +
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":4},` +
		`{"jsonrpc":"2.0","result":"b_2 {\"x\":true}","id":5},` +
		`{"jsonrpc":"2.0","result":"a_3 ","id":6},` +
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":7}]`
	for _, concurrency := range []int{1, 16} {
		a.groups, b.groups = nil, nil
		s := s
		if concurrency == 1 {
			s = forwardingServer(t, a, b, rpccore.WithBatchConcurrency(1))
		}
		if got := process(s, doc); got != want {
			t.Errorf("concurrency %d: got\n%s\nwant\n%s", concurrency, got, want)
		}
		if got, want := fmt.Sprint(a.seen()), "[[a_1 a_2! a_3]]"; got != want {
			t.Errorf("concurrency %d: a was handed %s, want %s: one Forward for the batch's calls", concurrency, got, want)
		}
		if got, want := fmt.Sprint(b.seen()), "[[b_1 b_2]]"; got != want {
			t.Errorf("concurrency %d: b was handed %s, want %s", concurrency, got, want)
		}
	}
}

func TestForwardBatchOfNotificationsOnly(t *testing.T) {
	a, b := &recorder{}, &recorder{}
	s := forwardingServer(t, a, b)
	if got := process(s, `[{"jsonrpc":"2.0","method":"a_1"},{"jsonrpc":"2.0","method":"b_1","params":[1]}]`); got != "" {
		t.Errorf("got %q, want nothing", got)
	}
	if got := fmt.Sprint(a.seen(), b.seen()); got != "[[a_1!]] [[b_1!]]" {
		t.Errorf("handed %s", got)
	}
}

func TestForwardGroupsRunConcurrently(t *testing.T) {
	// Each forwarder and the blocking local method wait until all three
	// have started: the batch answers only if they run at once.
	var started sync.WaitGroup
	started.Add(3)
	barrier := func(context.Context) {
		started.Done()
		started.Wait()
	}
	a, b := &recorder{before: barrier}, &recorder{before: barrier}
	s := forwardingServer(t, a, b)
	if err := s.Register("wait", rpccore.Func0(func(context.Context) (int, error) {
		barrier(context.Background())
		return 1, nil
	}).Blocking()); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		done <- process(s, `[{"jsonrpc":"2.0","method":"a_1","id":1},{"jsonrpc":"2.0","method":"wait","id":2},`+
			`{"jsonrpc":"2.0","method":"b_1","id":3},{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":4}]`)
	}()
	select {
	case got := <-done:
		want := `[{"jsonrpc":"2.0","result":"a_1 ","id":1},{"jsonrpc":"2.0","result":1,"id":2},` +
			`{"jsonrpc":"2.0","result":"b_1 ","id":3},{"jsonrpc":"2.0","result":3,"id":4}]`
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the groups and the blocking call did not run at once")
	}
}

func TestForwardGroupsRunInOrderWithConcurrencyOne(t *testing.T) {
	var mu sync.Mutex
	var order []string
	note := func(name string) func(context.Context) {
		return func(context.Context) {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}
	}
	a, b := &recorder{before: note("a")}, &recorder{before: note("b")}
	s := forwardingServer(t, a, b, rpccore.WithBatchConcurrency(1))
	process(s, `[{"jsonrpc":"2.0","method":"b_1","id":1},{"jsonrpc":"2.0","method":"a_1","id":2},{"jsonrpc":"2.0","method":"b_2","id":3}]`)
	if got := strings.Join(order, ","); got != "b,a" {
		t.Errorf("forwarders ran %s, want b,a (each when the batch reaches its first call)", got)
	}
}

func TestForwardedAnswers(t *testing.T) {
	a := &recorder{answer: func(c *rpccore.ForwardedCall) {
		switch c.Method {
		case "a_err":
			c.Error = &rpccore.Error{Code: -32010, Message: "upstream said no", Data: rpccore.RawJSON(`{"why":1}`)}
		case "a_bad":
			c.Result = []byte(`{"unterminated":`)
		case "a_null":
		case "a_big":
			c.Result = []byte(`"` + strings.Repeat("x", 300) + `"`)
		case "a_panic":
			panic("forwarder broke")
		default:
			c.Result = []byte(`true`)
		}
	}}
	var panics []string
	obs := &panicRecorder{record: func(method string) { panics = append(panics, method) }}
	s := forwardingServer(t, a, &recorder{}, rpccore.WithMaxResponseBytes(200), rpccore.WithObserver(obs))
	tests := []struct{ doc, want string }{
		{`{"jsonrpc":"2.0","method":"a_err","id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32010,"message":"upstream said no","data":{"why":1}},"id":1}`},
		{`{"jsonrpc":"2.0","method":"a_bad","id":2}`,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the forwarded call's result is not valid JSON"},"id":2}`},
		{`{"jsonrpc":"2.0","method":"a_null","id":3}`, `{"jsonrpc":"2.0","result":null,"id":3}`},
		{`{"jsonrpc":"2.0","method":"a_big","id":4}`,
			`{"jsonrpc":"2.0","error":{"code":-32003,"message":"Response too large"},"id":4}`},
		{`{"jsonrpc":"2.0","method":"a_panic","id":5}`,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":5}`},
		{`[{"jsonrpc":"2.0","method":"a_ok","id":1},{"jsonrpc":"2.0","method":"a_big","id":2},{"jsonrpc":"2.0","method":"addInt","params":[1,1],"id":3}]`,
			`[{"jsonrpc":"2.0","result":true,"id":1},{"jsonrpc":"2.0","error":{"code":-32003,"message":"Response too large"},"id":2},` +
				`{"jsonrpc":"2.0","error":{"code":-32003,"message":"Response too large"},"id":3}]`},
	}
	for _, tt := range tests {
		if got := process(s, tt.doc); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.doc, got, tt.want)
		}
	}
	if fmt.Sprint(panics) != "[a_panic]" {
		t.Errorf("panics observed: %v", panics)
	}
}

// panicRecorder is an Observer that records the methods that panicked.
type panicRecorder struct {
	record func(method string)
	calls  []string
}

func (p *panicRecorder) ObserveCall(method string, _ int, _ time.Duration) {
	p.calls = append(p.calls, method)
}

func (p *panicRecorder) ObservePanic(_ context.Context, method string, _ any, _ []byte) {
	p.record(method)
}

func TestForwardedCallsAreNotObserved(t *testing.T) {
	obs := &panicRecorder{record: func(string) {}}
	s := forwardingServer(t, &recorder{}, &recorder{}, rpccore.WithObserver(obs))
	process(s, `[{"jsonrpc":"2.0","method":"a_1","id":1},{"jsonrpc":"2.0","method":"addInt","params":[1,1],"id":2}]`)
	if fmt.Sprint(obs.calls) != "[addInt]" {
		t.Errorf("observed %v, want [addInt]: forwarded names are the clients' and are not observed", obs.calls)
	}
}

func TestForwardFilterAndGate(t *testing.T) {
	a, b := &recorder{}, &recorder{}
	s := forwardingServer(t, a, b,
		rpccore.WithMethodFilter(func(name string) bool { return name != "a_hidden" }),
		rpccore.WithCallGate(func(_ context.Context, method string) error {
			switch method {
			case "a_limited":
				return &rpccore.Error{Code: rpccore.CodeLimitExceeded, Message: "slow down"}
			case "a_secret":
				return rpccore.ErrMethodHidden
			}
			return nil
		}))
	tests := []struct{ doc, want string }{
		{`{"jsonrpc":"2.0","method":"a_hidden","id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`},
		{`{"jsonrpc":"2.0","method":"a_limited","id":2}`,
			`{"jsonrpc":"2.0","error":{"code":-32005,"message":"slow down"},"id":2}`},
		{`[{"jsonrpc":"2.0","method":"a_limited","id":1},{"jsonrpc":"2.0","method":"a_ok","id":2},` +
			`{"jsonrpc":"2.0","method":"a_secret","id":3},{"jsonrpc":"2.0","method":"a_hidden","id":4},{"jsonrpc":"2.0","method":"a_ok2","id":5}]`,
			`[{"jsonrpc":"2.0","error":{"code":-32005,"message":"slow down"},"id":1},{"jsonrpc":"2.0","result":"a_ok ","id":2},` +
				`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3},` +
				`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":4},{"jsonrpc":"2.0","result":"a_ok2 ","id":5}]`},
	}
	for _, tt := range tests {
		if got := process(s, tt.doc); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.doc, got, tt.want)
		}
	}
	if got := fmt.Sprint(a.seen()); got != "[[a_ok a_ok2]]" {
		t.Errorf("a was handed %s: hidden and refused calls must not be forwarded", got)
	}
}

func TestRegisterForwarderRefusesBadPatterns(t *testing.T) {
	s := rpccore.NewServer()
	for _, patterns := range [][]string{nil, {""}, {"a_["}} {
		if err := s.RegisterForwarder(patterns, &recorder{}); err == nil {
			t.Errorf("patterns %q: no error", patterns)
		}
	}
	if err := s.RegisterForwarder([]string{"*"}, nil); err == nil {
		t.Error("a nil forwarder: no error")
	}
}

func TestForwardCancelledBatchWaitsForItsGroups(t *testing.T) {
	// A batch whose answer overflows returns only once the groups it
	// started have returned: they point into the request.
	started, returned := make(chan struct{}), make(chan struct{})
	a := &recorder{before: func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond)
		close(returned)
	}}
	s := forwardingServer(t, a, &recorder{}, rpccore.WithMaxResponseBytes(100))
	if err := s.Register("big", rpccore.Func0(func(context.Context) (string, error) {
		<-started
		return strings.Repeat("x", 200), nil
	})); err != nil {
		t.Fatal(err)
	}
	got := process(s, `[{"jsonrpc":"2.0","method":"big","id":1},{"jsonrpc":"2.0","method":"a_1","id":2}]`)
	select {
	case <-returned:
	default:
		t.Fatal("Process returned before the forwarder did")
	}
	if !strings.Contains(got, `"code":-32003`) {
		t.Errorf("got %s", got)
	}
}

func TestForwardOverPeerRunsOffTheReader(t *testing.T) {
	release := make(chan struct{})
	a := &recorder{before: func(context.Context) { <-release }}
	s := forwardingServer(t, a, &recorder{})
	c, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 16)
	c.send(`{"jsonrpc":"2.0","method":"a_slow","id":1}`)
	c.send(`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":2}`)
	if got := c.recv(t); got["id"].(float64) != 2 {
		t.Fatalf("first answer %v: the forwarded call held up the connection", got)
	}
	close(release)
	if got := c.recv(t); got["id"].(float64) != 1 || got["result"] != "a_slow " {
		t.Fatalf("second answer %v", got)
	}
	c.send(`[{"jsonrpc":"2.0","method":"a_1","id":3},{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":4}]`)
	select {
	case m := <-c.out:
		if want := `[{"jsonrpc":"2.0","result":"a_1 ","id":3},{"jsonrpc":"2.0","result":3,"id":4}]`; string(m) != want {
			t.Errorf("batch answer %s, want %s", m, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no batch answer")
	}
}

// Interface guards
var (
	_ rpccore.Forwarder = (*recorder)(nil)
	_ rpccore.Forwarder = rpccore.ForwardFunc(nil)
)

// A Forwarder answers the calls whose names its patterns match: here every
// eth_* call of a batch arrives in one Forward, as a proxy would send it
// on, and the answers land in request order with the clients' ids.
func ExampleServer_RegisterForwarder() {
	s := rpccore.NewServer()
	_ = s.Register("local", rpccore.Func0(func(context.Context) (string, error) { return "here", nil }))
	_ = s.RegisterForwarder([]string{"eth_*"}, rpccore.ForwardFunc(func(_ context.Context, calls []rpccore.ForwardedCall) {
		fmt.Println("forwarding", len(calls), "calls")
		for i := range calls {
			calls[i].Result = rpccore.AppendString(nil, "upstream "+calls[i].Method)
		}
	}))
	out := s.Process(context.Background(), []byte(`[{"jsonrpc":"2.0","method":"eth_chainId","id":"a"},`+
		`{"jsonrpc":"2.0","method":"local","id":"b"},{"jsonrpc":"2.0","method":"eth_blockNumber","id":"c"}]`), nil)
	fmt.Println(string(out))
	// Output:
	// forwarding 2 calls
	// [{"jsonrpc":"2.0","result":"upstream eth_chainId","id":"a"},{"jsonrpc":"2.0","result":"here","id":"b"},{"jsonrpc":"2.0","result":"upstream eth_blockNumber","id":"c"}]
}
