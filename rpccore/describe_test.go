package rpccore_test

// describe_test.go covers what Methods tell of themselves (params, result,
// kind, Doc), the server's Method and SubscriptionSources, and
// RegisterExtension.

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

type describedParams struct {
	Name  string  `json:"name"`
	Age   int     `json:"age,omitempty"`
	City  *string `json:"city"`
	Skip  int     `json:"-"`
	Plain bool
}

func TestMethodsTellTheirParamsAndResult(t *testing.T) {
	intT, strT := reflect.TypeFor[int](), reflect.TypeFor[string]()
	tests := []struct {
		name        string
		m           *rpccore.Method
		params      []rpccore.Param
		result      reflect.Type
		raw, vararg bool
	}{
		{"Func0", rpccore.Func0(func(context.Context) (string, error) { return "", nil }), nil, strT, false, false},
		{"Func2 with a default", rpccore.Func2(func(context.Context, string, int) (int, error) { return 0, nil }, "s", "n").
			Default("n", 3), []rpccore.Param{{Name: "s", Type: strT, Required: true}, {Name: "n", Type: intT, Default: 3}},
			intT, false, false},
		{"Func1 pointer", rpccore.Func1(func(context.Context, *int) (bool, error) { return false, nil }, "p"),
			[]rpccore.Param{{Name: "p", Type: reflect.TypeFor[*int]()}}, reflect.TypeFor[bool](), false, false},
		{"Func1 Nullable", rpccore.Func1(func(context.Context, rpccore.Nullable[int]) (int, error) { return 0, nil }, "x"),
			[]rpccore.Param{{Name: "x", Type: reflect.TypeFor[rpccore.Nullable[int]]()}}, intT, false, false},
		{"Proc1", rpccore.Proc1(func(context.Context, int) error { return nil }, "n"),
			[]rpccore.Param{{Name: "n", Type: intT, Required: true}}, nil, false, false},
		{"Proc0", rpccore.Proc0(func(context.Context) error { return nil }), nil, nil, false, false},
		{"Variadic", rpccore.Variadic(func(context.Context, []float64) (float64, error) { return 0, nil }, "numbers"),
			[]rpccore.Param{{Name: "numbers", Type: reflect.TypeFor[[]float64]()}}, reflect.TypeFor[float64](), false, true},
		{"Struct", rpccore.Struct(func(context.Context, describedParams) (string, error) { return "", nil }),
			[]rpccore.Param{{Name: "name", Type: strT, Required: true}, {Name: "age", Type: intT},
				{Name: "city", Type: reflect.TypeFor[*string]()}, {Name: "Plain", Type: reflect.TypeFor[bool](), Required: true}},
			strT, false, false},
		{"Raw", rpccore.Raw(func(context.Context, []byte, *rpccore.ResultWriter) error { return nil }), nil, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Params(); !reflect.DeepEqual(got, tt.params) {
				t.Errorf("Params() = %+v, want %+v", got, tt.params)
			}
			if got := tt.m.Result(); got != tt.result {
				t.Errorf("Result() = %v, want %v", got, tt.result)
			}
			if tt.m.IsRaw() != tt.raw || tt.m.IsVariadic() != tt.vararg {
				t.Errorf("IsRaw %t, IsVariadic %t; want %t, %t", tt.m.IsRaw(), tt.m.IsVariadic(), tt.raw, tt.vararg)
			}
		})
	}
}

func TestParamsIsACopy(t *testing.T) {
	m := rpccore.Func1(func(_ context.Context, n int) (int, error) { return n, nil }, "n")
	m.Params()[0].Name = "changed"
	if m.Params()[0].Name != "n" {
		t.Fatal("changing what Params returned changed the method")
	}
}

func TestDescribeAttachesADoc(t *testing.T) {
	params := map[string]string{"a": "the first"}
	m := rpccore.Func2(func(context.Context, int, int) (int, error) { return 0, nil }, "a", "b").
		Describe(rpccore.Doc{Summary: "Adds.", Description: "More.", Params: params, Result: "The sum."})
	params["a"] = "changed by the caller"
	d := m.Doc()
	if d.Summary != "Adds." || d.Description != "More." || d.Result != "The sum." || d.Params["a"] != "the first" {
		t.Fatalf("Doc() = %+v", d)
	}
	d.Params["b"] = "added to the copy"
	if _, ok := m.Doc().Params["b"]; ok {
		t.Fatal("changing what Doc returned changed the method")
	}
	if m.Describe(rpccore.Doc{Summary: "Again."}).Doc().Summary != "Again." {
		t.Fatal("a second Describe did not replace the first")
	}
	if got := rpccore.Proc0(func(context.Context) error { return nil }).Doc(); !reflect.DeepEqual(got, rpccore.Doc{}) {
		t.Fatalf("an undescribed method's Doc() = %+v", got)
	}
}

func TestDescribeUnknownParamFailsRegistration(t *testing.T) {
	s := rpccore.NewServer()
	m := rpccore.Func1(func(_ context.Context, n int) (int, error) { return n, nil }, "n").
		Describe(rpccore.Doc{Params: map[string]string{"m": "no such param"}})
	err := s.Register("f", m)
	if err == nil || !strings.Contains(err.Error(), `unknown param "m"`) {
		t.Fatalf("Register: %v", err)
	}
}

func TestServerMethodSkipsHiddenOnes(t *testing.T) {
	s := rpccore.NewServer(rpccore.WithMethodFilter(func(name string) bool { return name != "hidden" }))
	shown := rpccore.Func0(func(context.Context) (int, error) { return 1, nil })
	if err := s.RegisterMethods(rpccore.Methods{"shown": shown, "hidden": rpccore.Proc0(func(context.Context) error { return nil })}); err != nil {
		t.Fatal(err)
	}
	if s.Method("shown") != shown || s.Method("hidden") != nil || s.Method("absent") != nil {
		t.Fatalf("Method: shown %p (want %p), hidden %p, absent %p", s.Method("shown"), shown, s.Method("hidden"), s.Method("absent"))
	}
}

func TestRegisterExtension(t *testing.T) {
	s := rpccore.NewServer(rpccore.WithMethodFilter(func(string) bool { return false })) // hides every method
	hello := rpccore.Func0(func(context.Context) (string, error) { return "hi", nil })
	if err := s.RegisterExtension("rpc.hello", hello); err != nil {
		t.Fatal(err)
	}
	got := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"rpc.hello","id":1}`), nil))
	if got != `{"jsonrpc":"2.0","result":"hi","id":1}` {
		t.Fatalf("rpc.hello: %s (the filter must not apply to extensions)", got)
	}
	if s.Method("rpc.hello") != hello {
		t.Fatal("Method does not find the extension")
	}
	if err := s.RegisterExtension("rpc.hello", hello); !errors.Is(err, rpccore.ErrDuplicateMethod) {
		t.Fatalf("twice: %v", err)
	}
	for _, name := range []string{"hello", "rpc.", "", "rpcx"} {
		if err := s.RegisterExtension(name, hello); err == nil {
			t.Errorf("RegisterExtension(%q) accepted the name", name)
		}
	}
	if err := s.Register("rpc.other", hello); err == nil {
		t.Error("Register accepted a name starting with rpc.")
	}
	if err := s.RegisterExtension("rpc.nil", nil); err == nil {
		t.Error("RegisterExtension accepted a nil method")
	}
}

func TestSubscriptionSourcesAreListedInOrder(t *testing.T) {
	s := rpccore.NewServer()
	src := func() *rpccore.Method { return rpccore.Proc0(func(context.Context) error { return nil }) }
	ticks := src()
	for _, r := range []struct {
		ns, name string
		m        *rpccore.Method
	}{{"b", "x", src()}, {"a", "ticks", ticks}, {"a", "chat", src()}} {
		if err := s.RegisterSubscription(r.ns, r.name, r.m); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, src := range s.SubscriptionSources() {
		got = append(got, src.Namespace+"/"+src.Name)
	}
	if want := []string{"a/chat", "a/ticks", "b/x"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("SubscriptionSources: %v, want %v", got, want)
	}
	if s.SubscriptionSources()[1].Method != ticks {
		t.Fatal("the source's Method is not the one registered")
	}
	if d := s.Method("a_unsubscribe").Doc(); d.Summary == "" || d.Params["id"] == "" {
		t.Fatalf("a_unsubscribe is not described: %+v", d)
	}
	if s.Method("a_subscribe").Doc().Summary == "" {
		t.Fatal("a_subscribe is not described")
	}
}
