package rpccore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// tracedKey marks the context of a traced call.
type tracedKey struct{}

// fakeTracer records what a server tells a CallTracer, as lines.
type fakeTracer struct {
	mu    sync.Mutex
	lines []string
	skip  string // a method whose calls it does not trace
}

func (t *fakeTracer) StartCall(ctx context.Context, method string, id []byte) (context.Context, bool) {
	if method == t.skip {
		return ctx, false
	}
	return context.WithValue(ctx, tracedKey{}, method+" "+string(id)), true
}

func (t *fakeTracer) EndCall(ctx context.Context, code int, message string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, fmt.Sprintf("%v %d %s", ctx.Value(tracedKey{}), code, message))
}

func (t *fakeTracer) ended() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.lines)
	slices.Sort(out)
	return out
}

// tracedServer is a server with methods that succeed, fail, see their
// context and are refused, told to a fakeTracer.
func tracedServer(t testing.TB, tr rpccore.CallTracer, opts ...rpccore.Option) *rpccore.Server {
	opts = append(opts, rpccore.WithCallTracer(tr), rpccore.WithCallGate(func(_ context.Context, m string) error {
		switch m {
		case "limited":
			return &rpccore.Error{Code: rpccore.CodeLimitExceeded, Message: "slow down"}
		case "hidden":
			return rpccore.ErrMethodHidden
		}
		return nil
	}))
	s := rpccore.NewServer(opts...)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Register("ok", rpccore.Func0(func(context.Context) (int, error) { return 1, nil })))
	must(s.Register("fail", rpccore.Func0(func(context.Context) (int, error) {
		return 0, &rpccore.Error{Code: 7, Message: "no luck"}
	})))
	must(s.Register("plain", rpccore.Func0(func(context.Context) (int, error) { return 0, errors.New("broken") })))
	must(s.Register("panics", rpccore.Func0(func(context.Context) (int, error) { panic("boom") })))
	must(s.Register("span", rpccore.Func0(func(ctx context.Context) (string, error) {
		v, _ := ctx.Value(tracedKey{}).(string)
		return v, nil
	})))
	for _, m := range []string{"limited", "hidden"} {
		must(s.Register(m, rpccore.Func0(func(context.Context) (int, error) { return 0, nil })))
	}
	return s
}

func TestCallTracerHearsOfEachCall(t *testing.T) {
	for _, tc := range []struct {
		name, req string
		want      []string
	}{
		{"single", `{"jsonrpc":"2.0","method":"ok","id":1}`, []string{"ok 1 0 "}},
		{"string id", `{"jsonrpc":"2.0","method":"ok","id":"a\"b"}`, []string{`ok "a\"b" 0 `}},
		{"null id", `{"jsonrpc":"2.0","method":"ok","id":null}`, []string{"ok null 0 "}},
		{"notification", `{"jsonrpc":"2.0","method":"ok"}`, []string{"ok  0 "}},
		{"error", `{"jsonrpc":"2.0","method":"fail","id":2}`, []string{"fail 2 7 no luck"}},
		{"failing notification", `{"jsonrpc":"2.0","method":"fail"}`, []string{"fail  7 no luck"}},
		{"plain error", `{"jsonrpc":"2.0","method":"plain","id":2}`, []string{"plain 2 -32000 broken"}},
		{"panic", `{"jsonrpc":"2.0","method":"panics","id":2}`, []string{"panics 2 -32603 Internal error"}},
		{"refused", `{"jsonrpc":"2.0","method":"limited","id":3}`, []string{"limited 3 -32005 slow down"}},
		{"hidden", `{"jsonrpc":"2.0","method":"hidden","id":3}`, []string{"hidden 3 -32601 Method not found"}},
		{"batch", `[{"jsonrpc":"2.0","method":"ok","id":1},{"jsonrpc":"2.0","method":"fail","id":2},` +
			`{"jsonrpc":"2.0","method":"ok","id":3}]`, []string{"fail 2 7 no luck", "ok 1 0 ", "ok 3 0 "}},
		{"not traced", `[{"jsonrpc":"2.0","method":"nope","id":1},{"jsonrpc":"2.0","id":2},{"jsonrpc":"2.0","method":"ok","id":3}]`,
			[]string{"ok 3 0 "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &fakeTracer{}
			tracedServer(t, tr).Process(context.Background(), []byte(tc.req), nil)
			if got := tr.ended(); !slices.Equal(got, tc.want) {
				t.Errorf("traced %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCallTracerContextReachesTheMethod(t *testing.T) {
	tr := &fakeTracer{}
	out := tracedServer(t, tr).Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"span","id":9}`), nil)
	if want := `"result":"span 9"`; !strings.Contains(string(out), want) {
		t.Errorf("answer %s, want it to hold %s", out, want)
	}
}

func TestCallTracerEndsOnlyWhatItStarted(t *testing.T) {
	tr := &fakeTracer{skip: "ok"}
	tracedServer(t, tr).Process(context.Background(),
		[]byte(`[{"jsonrpc":"2.0","method":"ok","id":1},{"jsonrpc":"2.0","method":"fail","id":2}]`), nil)
	if got, want := tr.ended(), []string{"fail 2 7 no luck"}; !slices.Equal(got, want) {
		t.Errorf("traced %q, want %q", got, want)
	}
}

func TestCallTracerHearsOfForwardedCalls(t *testing.T) {
	for _, conc := range []int{1, 4} {
		t.Run(fmt.Sprint("concurrency ", conc), func(t *testing.T) {
			tr := &fakeTracer{}
			s := tracedServer(t, tr, rpccore.WithBatchConcurrency(conc))
			var mu sync.Mutex
			var seen []string // the context each Forward ran in
			err := s.RegisterForwarder([]string{"up.*"}, rpccore.ForwardFunc(func(ctx context.Context, calls []rpccore.ForwardedCall) {
				mu.Lock()
				v, _ := ctx.Value(tracedKey{}).(string)
				seen = append(seen, fmt.Sprintf("%d:%s", len(calls), v))
				mu.Unlock()
				for i := range calls {
					if calls[i].Method == "up.fail" {
						calls[i].Error = &rpccore.Error{Code: 9, Message: "far away"}
					} else {
						calls[i].Result = []byte(`true`)
					}
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"up.one","id":1}`), nil)
			s.Process(context.Background(), []byte(`[{"jsonrpc":"2.0","method":"up.two","id":2},`+
				`{"jsonrpc":"2.0","method":"up.fail","id":3},{"jsonrpc":"2.0","method":"up.note"},{"jsonrpc":"2.0","method":"ok","id":4}]`), nil)
			s.Process(context.Background(), []byte(`[{"jsonrpc":"2.0","method":"up.alone","id":5},{"jsonrpc":"2.0","method":"ok","id":6}]`), nil)
			want := []string{"ok 4 0 ", "ok 6 0 ", "up.alone 5 0 ", "up.fail 3 9 far away", "up.note  0 ", "up.one 1 0 ", "up.two 2 0 "}
			if got := tr.ended(); !slices.Equal(got, want) {
				t.Errorf("traced %q, want %q", got, want)
			}
			// A Forward of one call runs in that call's context; one of
			// several, in the document's.
			slices.Sort(seen)
			if want := []string{"1:up.alone 5", "1:up.one 1", "3:"}; !slices.Equal(seen, want) {
				t.Errorf("Forward's contexts %q, want %q", seen, want)
			}
		})
	}
}

func TestNoCallTracerNoAllocation(t *testing.T) {
	s := demoServer(t)
	ctx := context.Background()
	req := []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	dst := make([]byte, 0, 256)
	before := testing.AllocsPerRun(1000, func() { dst = s.Process(ctx, req, dst[:0]) })
	st := demoServer(t, rpccore.WithCallTracer(noTrace{}))
	if got := testing.AllocsPerRun(1000, func() { dst = st.Process(ctx, req, dst[:0]) }); got != before {
		t.Errorf("%v allocations per call with a tracer that traces nothing, %v without one", got, before)
	}
}

// noTrace is a CallTracer that traces nothing.
type noTrace struct{}

func (noTrace) StartCall(ctx context.Context, _ string, _ []byte) (context.Context, bool) {
	return ctx, false
}
func (noTrace) EndCall(context.Context, int, string) {}
