package demo_test

import (
	"context"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// workload is the five benchmark requests.
var workload = []struct{ name, req, want string }{
	{"add", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, `{"jsonrpc":"2.0","result":3,"id":1}`},
	{"addInt", `{"jsonrpc":"2.0","method":"addInt","params":[1,7],"id":2}`, `{"jsonrpc":"2.0","result":8,"id":2}`},
	{"NullableFloatToNullableFloat", `{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[1.23],"id":3}`, `{"jsonrpc":"2.0","result":1.23,"id":3}`},
	{"Test2", `{"jsonrpc":"2.0","method":"Test2","params":[3.456],"id":4}`, `{"jsonrpc":"2.0","result":3.456,"id":4}`},
	{"StringMe", `{"jsonrpc":"2.0","method":"StringMe","params":["Foo"],"id":5}`, `{"jsonrpc":"2.0","result":"Foo","id":5}`},
}

func newServer(tb testing.TB) *rpccore.Server {
	tb.Helper()
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestWorkloadAnswers(t *testing.T) {
	s := newServer(t)
	for _, w := range workload {
		if got := string(s.Process(context.Background(), []byte(w.req), nil)); got != w.want {
			t.Errorf("%s: got %s, want %s", w.name, got, w.want)
		}
	}
}
