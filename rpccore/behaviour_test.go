package rpccore_test

// behaviour_test.go covers errors returned by methods, panics, context,
// limits and concurrency within batches.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestMethodErrors(t *testing.T) {
	var panics []string
	s := rpccore.NewServer(rpccore.WithObserver(panicObserver(func(_ context.Context, method string, v any, stack []byte) {
		panics = append(panics, fmt.Sprintf("%s:%v:%t", method, v, strings.Contains(string(stack), "behaviour_test.go")))
	})))
	for name, m := range map[string]*rpccore.Method{
		"coded": rpccore.Func0(func(context.Context) (int, error) {
			return 0, &rpccore.Error{Code: 42, Message: "the answer", Data: map[string]int{"x": 1}}
		}),
		"wrapped": rpccore.Func0(func(context.Context) (int, error) {
			return 0, fmt.Errorf("while looking: %w", &rpccore.Error{Code: -32001, Message: "not found"})
		}),
		"plain": rpccore.Func0(func(context.Context) (int, error) { return 0, errors.New("disk \"full\"") }),
		"boom":  rpccore.Func0(func(context.Context) (int, error) { panic("boom") }),
		"nan": rpccore.Func0(func(context.Context) (float64, error) {
			var zero float64
			return zero / zero, nil
		}),
		"badraw": rpccore.Func0(func(context.Context) (rpccore.RawJSON, error) { return rpccore.RawJSON("{"), nil }),
	} {
		if err := s.Register(name, m); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ method, want string }{
		{"coded", `{"jsonrpc":"2.0","error":{"code":42,"message":"the answer","data":{"x":1}},"id":1}`},
		{"wrapped", `{"jsonrpc":"2.0","error":{"code":-32001,"message":"not found"},"id":1}`},
		{"plain", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"disk \"full\""},"id":1}`},
		{"boom", `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}`},
		{"nan", `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"result cannot be encoded: rpccore: NaN or infinite number has no JSON form"},"id":1}`},
		{"badraw", `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"result cannot be encoded: rpccore: raw JSON is not valid"},"id":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			if got := call(s, `{"jsonrpc":"2.0","method":"`+tt.method+`","id":1}`); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if len(panics) != 1 || panics[0] != "boom:boom:true" {
		t.Fatalf("panic hook saw %q", panics)
	}
	// The panic hit one call of the batch only.
	got := call(s, `[{"jsonrpc":"2.0","method":"boom","id":1},{"jsonrpc":"2.0","method":"wrapped","id":2}]`)
	if !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, `"code":-32001`) {
		t.Fatalf("batch with a panic: %s", got)
	}
}

func TestContextReachesMethods(t *testing.T) {
	s := rpccore.NewServer()
	err := s.Register("who", rpccore.Func0(func(ctx context.Context) (string, error) {
		info := rpccore.RequestInfoFrom(ctx)
		if info == nil {
			return "", errors.New("no request info")
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		return info.Transport + " " + info.RemoteAddr + " " + info.Header["X-Name"][0], nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := rpccore.WithRequestInfo(context.Background(), &rpccore.RequestInfo{
		Transport: "http", RemoteAddr: "127.0.0.1:9", Header: map[string][]string{"X-Name": {"ann"}},
	})
	req := []byte(`{"jsonrpc":"2.0","method":"who","id":1}`)
	if got, want := string(s.Process(ctx, req, nil)), `{"jsonrpc":"2.0","result":"http 127.0.0.1:9 ann","id":1}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if got := string(s.Process(cancelled, req, nil)); !strings.Contains(got, "context canceled") {
		t.Fatalf("a cancelled caller's context did not reach the method: %s", got)
	}
}

func TestLimits(t *testing.T) {
	var runs atomic.Int32
	s := rpccore.NewServer(
		rpccore.WithMaxRequestBytes(2000),
		rpccore.WithMaxBatch(3),
		rpccore.WithMaxResponseBytes(150),
		rpccore.WithMaxDepth(4),
	)
	err := s.Register("big", rpccore.Func1(func(_ context.Context, n int) (string, error) {
		runs.Add(1)
		return strings.Repeat("x", n), nil
	}, "n"))
	if err != nil {
		t.Fatal(err)
	}
	big := func(id, n int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"big","params":[%d],"id":%d}`, n, id)
	}
	tooLarge := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32003,"message":"Response too large"},"id":%d}`, id)
	}
	tests := []struct {
		name, req, want string
		runs            int32
	}{
		{"request too large", `[` + strings.Repeat(" ", 2000) + `]`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"request of 2002 bytes exceeds the limit of 2000"},"id":null}`, 0},
		{"batch too large", `[` + big(1, 1) + `,` + big(2, 1) + `,` + big(3, 1) + `,` + big(4, 1) + `]`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"batch of 4 items exceeds the limit of 3"},"id":null}`, 0},
		{"batch at the limit", `[` + big(1, 1) + `,` + big(2, 1) + `,` + big(3, 1) + `]`,
			`[{"jsonrpc":"2.0","result":"x","id":1},{"jsonrpc":"2.0","result":"x","id":2},{"jsonrpc":"2.0","result":"x","id":3}]`, 3},
		{"too deep", `{"jsonrpc":"2.0","method":"big","params":[[[[1]]]],"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"nesting depth 5 exceeds the limit of 4"},"id":1}`, 0},
		{"depth at the limit", `{"jsonrpc":"2.0","method":"big","params":[[[1]]],"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"param \"n\": want integer, got array"},"id":1}`, 0},
		{"single response too large", big(1, 200), tooLarge(1), 1},
		{"batch response crosses the limit", `[` + big(1, 10) + `,` + big(2, 100) + `,` + big(3, 1) + `]`,
			`[{"jsonrpc":"2.0","result":"xxxxxxxxxx","id":1},` + tooLarge(2) + `,` + tooLarge(3) + `]`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs.Store(0)
			if got := call(s, tt.req); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if got := runs.Load(); got != tt.runs {
				t.Fatalf("%d calls ran, want %d", got, tt.runs)
			}
		})
	}
}

func TestDefaultLimits(t *testing.T) {
	s := demoServer(t)
	items := make([]string, rpccore.DefaultMaxBatch+1)
	for i := range items {
		items[i] = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	}
	if got := call(s, "["+strings.Join(items, ",")+"]"); !strings.Contains(got, "batch of 1001 items exceeds the limit of 1000") {
		t.Fatalf("batch limit: %.200s", got)
	}
	deep := strings.Repeat("[", rpccore.DefaultMaxDepth-1) + strings.Repeat("]", rpccore.DefaultMaxDepth-1)
	if got := call(s, `{"jsonrpc":"2.0","method":"update","params":`+deep+`,"id":1}`); got != `{"jsonrpc":"2.0","result":null,"id":1}` {
		t.Fatalf("depth at the default limit: %s", got)
	}
	if got := call(s, `{"jsonrpc":"2.0","method":"update","params":[`+deep+`],"id":1}`); !strings.Contains(got, "nesting depth 129") {
		t.Fatalf("depth past the default limit: %s", got)
	}
}

func TestBlockingMethodsRunConcurrentlyInABatch(t *testing.T) {
	var mu sync.Mutex
	arrived := 0
	allHere := make(chan struct{})
	meet := func(ctx context.Context, id int) (int, error) {
		mu.Lock()
		if arrived++; arrived == 3 {
			close(allHere)
		}
		mu.Unlock()
		select {
		case <-allHere:
			return id, nil
		case <-time.After(5 * time.Second):
			return 0, errors.New("the other calls never ran alongside")
		}
	}
	s := rpccore.NewServer(rpccore.WithBatchConcurrency(3))
	if err := s.Register("meet", rpccore.Func1(meet, "id").Blocking()); err != nil {
		t.Fatal(err)
	}
	if err := s.Register("now", rpccore.Func1(func(_ context.Context, id int) (int, error) { return id, nil }, "id")); err != nil {
		t.Fatal(err)
	}
	got := call(s, `[{"jsonrpc":"2.0","method":"meet","params":[1],"id":1},`+
		`{"jsonrpc":"2.0","method":"now","params":[2],"id":2},`+
		`{"jsonrpc":"2.0","method":"meet","params":[3],"id":3},`+
		`{"jsonrpc":"2.0","method":"meet","params":[4]},`+
		`{"jsonrpc":"2.0","method":"now","params":[5],"id":5}]`)
	want := `[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":2},` +
		`{"jsonrpc":"2.0","result":3,"id":3},{"jsonrpc":"2.0","result":5,"id":5}]`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestBatchConcurrencyOfOneKeepsOrder(t *testing.T) {
	var order []int
	s := rpccore.NewServer(rpccore.WithBatchConcurrency(1))
	err := s.Register("step", rpccore.Proc1(func(_ context.Context, n int) error {
		order = append(order, n)
		return nil
	}, "n").Blocking())
	if err != nil {
		t.Fatal(err)
	}
	call(s, `[{"jsonrpc":"2.0","method":"step","params":[1]},{"jsonrpc":"2.0","method":"step","params":[2]},`+
		`{"jsonrpc":"2.0","method":"step","params":[3]}]`)
	if fmt.Sprint(order) != "[1 2 3]" {
		t.Fatalf("ran in order %v", order)
	}
}

type recordingObserver struct {
	mu    sync.Mutex
	calls []string
}

func (o *recordingObserver) ObserveCall(method string, code int, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, fmt.Sprintf("%s:%d:%t", method, code, d >= 0))
}

func TestSummaryAndObserver(t *testing.T) {
	obs := &recordingObserver{}
	s := demoServer(t, rpccore.WithObserver(obs))
	tests := []struct {
		req  string
		want rpccore.Summary
	}{
		{`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"a"}`, rpccore.Summary{Method: "add", ID: []byte(`"a"`)}},
		{`{"jsonrpc":"2.0","method":"nope","id":2}`, rpccore.Summary{Method: "nope", ID: []byte(`2`), ErrorCode: -32601}},
		{`[{"jsonrpc":"2.0","method":"add","params":[1],"id":1},{"jsonrpc":"2.0","method":"add","params":[1,2],"id":2}]`,
			rpccore.Summary{Method: "add", ID: []byte(`1`), BatchSize: 2, ErrorCode: -32602}},
		{`{`, rpccore.Summary{ErrorCode: -32700}},
	}
	for _, tt := range tests {
		var sum rpccore.Summary
		s.ProcessSummary(context.Background(), []byte(tt.req), nil, &sum)
		if fmt.Sprint(sum) != fmt.Sprint(tt.want) {
			t.Errorf("%s: summary %+v, want %+v", tt.req, sum, tt.want)
		}
	}
	if got, want := fmt.Sprint(obs.calls), "[add:0:true add:-32602:true add:0:true]"; got != want {
		t.Fatalf("observer saw %s, want %s", got, want)
	}
}

// methodRecorder gives each method but "subtract" a CallObserver of its own.
type methodRecorder struct {
	recordingObserver
	asked []string
}

func (o *methodRecorder) ObserverFor(method string) rpccore.CallObserver {
	o.asked = append(o.asked, method)
	if method == "subtract" {
		return nil
	}
	return methodCalls{o, method}
}

type methodCalls struct {
	o      *methodRecorder
	method string
}

func (c methodCalls) ObserveCall(code int, d time.Duration) {
	c.o.recordingObserver.ObserveCall("own "+c.method, code, d)
}

func TestMethodObserverHearsEachMethodThroughItsOwnCallObserver(t *testing.T) {
	obs := &methodRecorder{}
	s := demoServer(t, rpccore.WithObserver(obs))
	if !slices.Contains(obs.asked, "add") || !slices.Contains(obs.asked, "subtract") {
		t.Fatalf("asked for %v", obs.asked)
	}
	call(s, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	call(s, `{"jsonrpc":"2.0","method":"add","params":[1],"id":2}`)
	call(s, `{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":3}`)
	if got, want := fmt.Sprint(obs.calls), "[own add:0:true own add:-32602:true subtract:0:true]"; got != want {
		t.Fatalf("observer saw %s, want %s", got, want)
	}
}

func TestMethodFilter(t *testing.T) {
	s := demoServer(t, rpccore.WithMethodFilter(func(name string) bool { return name != "subtract" }))
	if got := call(s, `{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1}`); !strings.Contains(got, "-32601") {
		t.Fatalf("filtered method answered %s", got)
	}
	if got := call(s, `{"jsonrpc":"2.0","method":"add","params":[2,1],"id":1}`); !strings.Contains(got, `"result":3`) {
		t.Fatalf("unfiltered method answered %s", got)
	}
}

// panicObserver is an rpccore.PanicObserver that hears of panics only.
type panicObserver func(ctx context.Context, method string, v any, stack []byte)

func (panicObserver) ObserveCall(string, int, time.Duration) {}

func (o panicObserver) ObservePanic(ctx context.Context, method string, v any, stack []byte) {
	o(ctx, method, v, stack)
}

func TestCallGateRefusesOrHidesCalls(t *testing.T) {
	var seen []string
	s := rpccore.NewServer(rpccore.WithCallGate(func(ctx context.Context, method string) error {
		seen = append(seen, method)
		switch method {
		case "secret":
			return rpccore.ErrMethodHidden
		case "limited":
			return &rpccore.Error{Code: rpccore.CodeLimitExceeded, Message: "Limit exceeded", Data: map[string]int{"retry_after_ms": 5}}
		}
		return nil
	}))
	for _, name := range []string{"open", "secret", "limited"} {
		if err := s.Register(name, rpccore.Func0(func(context.Context) (int, error) { return 1, nil })); err != nil {
			t.Fatal(err)
		}
	}
	got := string(s.Process(context.Background(), []byte(`[`+
		`{"jsonrpc":"2.0","method":"open","id":1},`+
		`{"jsonrpc":"2.0","method":"secret","id":2},`+
		`{"jsonrpc":"2.0","method":"nothere","id":3},`+
		`{"jsonrpc":"2.0","method":"limited","id":4},`+
		`{"jsonrpc":"2.0","method":"limited"}]`), nil))
	hidden := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"secret","id":2}`), nil))
	unknown := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"nothere","id":2}`), nil))
	want := `[{"jsonrpc":"2.0","result":1,"id":1},` +
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2},` +
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3},` +
		`{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":{"retry_after_ms":5}},"id":4}]`
	if got != want || hidden != unknown {
		t.Fatalf("got  %s\nwant %s\nhidden %s, unknown %s", got, want, hidden, unknown)
	}
	if strings.Join(seen, ",") != "open,secret,limited,limited,secret" {
		t.Fatalf("the gate sees each call to a registered method, notifications too: %v", seen)
	}
}

// timingCounter counts each method's calls and the calls timed.
type timingCounter struct {
	mu           sync.Mutex
	calls, timed map[string]int
}

func (o *timingCounter) ObserveCall(method string, _ int, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls[method]++
	if d != rpccore.NotTimed {
		o.timed[method]++
	}
}

func TestCallTimingSampleTimesEveryBlockingCallAndASampleOfTheRest(t *testing.T) {
	obs := &timingCounter{calls: map[string]int{}, timed: map[string]int{}}
	s := demoServer(t, rpccore.WithObserver(obs), rpccore.WithCallTimingSample(4))
	const adds, delays = 4000, 20
	for range adds {
		call(s, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	}
	for range delays {
		call(s, `{"jsonrpc":"2.0","method":"delay","params":[0],"id":1}`)
	}
	if obs.calls["add"] != adds || obs.calls["delay"] != delays {
		t.Fatalf("observer heard of %v, want every call", obs.calls)
	}
	// One in four at random: 1000 expected, with a standard deviation of 27.
	if n := obs.timed["add"]; n < 800 || n > 1200 {
		t.Errorf("%d of %d add calls timed, want about a quarter", n, adds)
	}
	if n := obs.timed["delay"]; n != delays {
		t.Errorf("%d of %d calls of the Blocking delay timed, want all", n, delays)
	}

	// A peer's reader draws the calls it times itself: the same share, and
	// no method left out when two are called in turn.
	byPeer := &timingCounter{calls: map[string]int{}, timed: map[string]int{}}
	s = demoServer(t, rpccore.WithObserver(byPeer), rpccore.WithCallTimingSample(4))
	pipe, _, _ := servePeer(t, s, rpccore.PeerConfig{}, 64)
	for i := range adds {
		method := []string{"add", "addInt"}[i%2]
		pipe.send(`{"jsonrpc":"2.0","method":"` + method + `","params":[1,2],"id":1}`)
		pipe.recv(t)
	}
	for _, m := range []string{"add", "addInt"} {
		if byPeer.calls[m] != adds/2 {
			t.Fatalf("observer heard of %d %s calls over a peer, want %d", byPeer.calls[m], m, adds/2)
		}
		// 500 expected, with a standard deviation under 22.
		if n := byPeer.timed[m]; n < 400 || n > 600 {
			t.Errorf("over a peer %d of %d %s calls timed, want about a quarter", n, adds/2, m)
		}
	}

	every := &timingCounter{calls: map[string]int{}, timed: map[string]int{}}
	s = demoServer(t, rpccore.WithObserver(every))
	for range 100 {
		call(s, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	}
	if every.timed["add"] != 100 {
		t.Errorf("by default %d of 100 calls timed, want all", every.timed["add"])
	}
}
