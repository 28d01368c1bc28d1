package rpccore_test

// edge_test.go covers the rules the specification leaves to servers and the
// package's own promises: ids, versions, params, errors, panics and context.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// call runs req on s and returns the response document.
func call(s *rpccore.Server, req string) string {
	return string(s.Process(context.Background(), []byte(req), nil))
}

func TestRequestObjectRules(t *testing.T) {
	const (
		invalid  = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":%s}`
		parseErr = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`
	)
	inv := func(id string) string { return strings.Replace(invalid, "%s", id, 1) }
	tests := []struct{ name, req, want string }{
		{"escaped method name", `{"jsonrpc":"2.0","method":"su\u0062tract","params":[3,1],"id":1}`,
			`{"jsonrpc":"2.0","result":2,"id":1}`},
		{"escaped member names", `{"\u006asonrpc":"2.0","m\u0065thod":"subtract","p\u0061rams":[3,1],"\u0069d":1}`,
			`{"jsonrpc":"2.0","result":2,"id":1}`},
		{"escaped version", `{"jsonrpc":"2\u002e0","method":"subtract","params":[3,1],"id":1}`,
			`{"jsonrpc":"2.0","result":2,"id":1}`},
		{"members in any order with whitespace", " \n{ \"id\" : 7 ,\t\"params\" : [ 3 , 1 ] , \"method\" : \"subtract\" , \"jsonrpc\" : \"2.0\" }\r\n",
			`{"jsonrpc":"2.0","result":2,"id":7}`},
		{"30-digit id echoed unchanged", `{"jsonrpc":"2.0","method":"get_data","id":123456789012345678901234567890}`,
			`{"jsonrpc":"2.0","result":["hello",5],"id":123456789012345678901234567890}`},
		{"fractional id echoed unchanged", `{"jsonrpc":"2.0","method":"get_data","id":-1.50e+3}`,
			`{"jsonrpc":"2.0","result":["hello",5],"id":-1.50e+3}`},
		{"escaped string id echoed unchanged", `{"jsonrpc":"2.0","method":"get_data","id":"a\"b\u00e9"}`,
			`{"jsonrpc":"2.0","result":["hello",5],"id":"a\"b\u00e9"}`},
		{"null id is answered", `{"jsonrpc":"2.0","method":"get_data","id":null}`,
			`{"jsonrpc":"2.0","result":["hello",5],"id":null}`},
		{"object id", `{"jsonrpc":"2.0","method":"get_data","id":{"a":1}}`, inv("null")},
		{"array id", `{"jsonrpc":"2.0","method":"get_data","id":[1]}`, inv("null")},
		{"boolean id", `{"jsonrpc":"2.0","method":"get_data","id":true}`, inv("null")},
		{"missing version", `{"method":"get_data","id":1}`, inv("1")},
		{"wrong version", `{"jsonrpc":"1.0","method":"get_data","id":1}`, inv("1")},
		{"numeric version", `{"jsonrpc":2.0,"method":"get_data","id":1}`, inv("1")},
		{"missing method", `{"jsonrpc":"2.0","id":1}`, inv("1")},
		{"string params", `{"jsonrpc":"2.0","method":"get_data","params":"x","id":1}`, inv("1")},
		{"null params", `{"jsonrpc":"2.0","method":"get_data","params":null,"id":1}`, inv("1")},
		{"invalid request without id is answered", `{"jsonrpc":"2.0","method":5}`, inv("null")},
		{"empty object", `{}`, inv("null")},
		{"number document", `42`, inv("null")},
		{"string document", `"hello"`, inv("null")},
		{"null document", `null`, inv("null")},
		{"empty document", ``, parseErr},
		{"whitespace document", " \n\t", parseErr},
		{"trailing bytes", `{"jsonrpc":"2.0","method":"get_data","id":1}x`, parseErr},
		{"two documents", `{"jsonrpc":"2.0","method":"get_data","id":1}{}`, parseErr},
		{"invalid JSON inside params", `{"jsonrpc":"2.0","method":"subtract","params":[1,02],"id":1}`, parseErr},
		{"control character in a string", "{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":\"a\x01\"}", parseErr},
		{"bad escape", `{"jsonrpc":"2.0","method":"get_d\ata","id":1}`, parseErr},
		{"reserved rpc. method", `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`},
		{"batch with trailing bytes", `[{"jsonrpc":"2.0","method":"get_data","id":1}] ]`, parseErr},
		{"batch item that is an array", `[[]]`, `[` + inv("null") + `]`},
	}
	s := demoServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := call(s, tt.req); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// paramsServer registers methods that exercise every param form.
func paramsServer(t *testing.T) *rpccore.Server {
	t.Helper()
	s := rpccore.NewServer()
	type window struct {
		Width  int      `json:"width"`
		Height int      `json:"height"`
		Title  *string  `json:"title"`
		Scale  float64  `json:"scale,omitempty"`
		Tags   []string `json:"tags,omitempty"`
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Register("int8", rpccore.Func1(func(_ context.Context, v int8) (int8, error) { return v, nil }, "v")))
	must(s.Register("uint", rpccore.Func1(func(_ context.Context, v uint) (uint, error) { return v, nil }, "v")))
	must(s.Register("int64", rpccore.Func1(func(_ context.Context, v int64) (int64, error) { return v, nil }, "v")))
	must(s.Register("float32", rpccore.Func1(func(_ context.Context, v float32) (float32, error) { return v, nil }, "v")))
	must(s.Register("bool", rpccore.Func1(func(_ context.Context, v bool) (bool, error) { return !v, nil }, "v")))
	must(s.Register("strings", rpccore.Func1(func(_ context.Context, v []string) (int, error) { return len(v), nil }, "v")))
	must(s.Register("greet", rpccore.Func2(func(_ context.Context, name string, greeting *string) (string, error) {
		if greeting == nil {
			return "hello " + name, nil
		}
		return *greeting + " " + name, nil
	}, "name", "greeting")))
	must(s.Register("scale", rpccore.Func2(func(_ context.Context, x, factor float64) (float64, error) {
		return x * factor, nil
	}, "x", "factor").Default("factor", 10.0)))
	must(s.Register("opt", rpccore.Func1(func(_ context.Context, v rpccore.Nullable[int]) (rpccore.Nullable[int], error) {
		return v, nil
	}, "v")))
	must(s.Register("area", rpccore.Struct(func(_ context.Context, w window) (string, error) {
		title := "untitled"
		if w.Title != nil {
			title = *w.Title
		}
		return title + ":" + strings.Repeat("#", w.Width*w.Height), nil
	})))
	must(s.Register("four", rpccore.Func4(func(_ context.Context, a, b, c, d int) ([]int, error) {
		return []int{d, c, b, a}, nil
	}, "a", "b", "c", "d")))
	must(s.Register("three", rpccore.Func3(func(_ context.Context, a string, b bool, c float64) (string, error) {
		if b {
			return a, nil
		}
		return "", nil
	}, "a", "b", "c")))
	must(s.Register("nothing", rpccore.Proc0(func(context.Context) error { return nil })))
	must(s.Register("store", rpccore.Proc1(func(context.Context, int) error { return nil }, "v")))
	must(s.Register("echo", rpccore.Func1(func(_ context.Context, v rpccore.RawJSON) (rpccore.RawJSON, error) {
		return v, nil
	}, "v")))
	must(s.Register("raw", rpccore.Raw(func(_ context.Context, params []byte, w *rpccore.ResultWriter) error {
		if params == nil {
			w.String("no params")
			return nil
		}
		w.Int64(int64(len(params)))
		return nil
	})))
	must(s.Register("count", rpccore.Variadic(func(_ context.Context, v []int) (int, error) { return len(v), nil }, "values")))
	return s
}

func TestParams(t *testing.T) {
	const invalidParams = `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":%q},"id":1}`
	bad := func(data string) string { return strings.Replace(invalidParams, "%q", `"`+data+`"`, 1) }
	ok := func(result string) string { return `{"jsonrpc":"2.0","result":` + result + `,"id":1}` }
	req := func(method, params string) string {
		if params == "" {
			return `{"jsonrpc":"2.0","method":"` + method + `","id":1}`
		}
		return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":1}`
	}
	tests := []struct{ name, req, want string }{
		{"int8 in range", req("int8", "[-128]"), ok("-128")},
		{"int8 out of range", req("int8", "[128]"), bad(`param \"v\": number 128 does not fit int8`)},
		{"int64 max", req("int64", "[9223372036854775807]"), ok("9223372036854775807")},
		{"int64 overflow", req("int64", "[9223372036854775808]"), bad(`param \"v\": number 9223372036854775808 does not fit int64`)},
		{"int with fraction", req("int64", "[1.5]"), bad(`param \"v\": number 1.5 does not fit int64`)},
		{"int with exponent", req("int64", "[1e3]"), bad(`param \"v\": number 1e3 does not fit int64`)},
		{"negative uint", req("uint", "[-1]"), bad(`param \"v\": number -1 does not fit uint`)},
		{"float32 overflow", req("float32", "[1e39]"), bad(`param \"v\": number 1e39 does not fit float32`)},
		{"float32 precision", req("float32", "[0.1]"), ok("0.1")},
		{"string for a number", req("int64", `["1"]`), bad(`param \"v\": want integer, got string`)},
		{"null for a number", req("int64", `[null]`), bad(`param \"v\": want integer, got null`)},
		{"bool", req("bool", "[false]"), ok("true")},
		{"number for a bool", req("bool", "[0]"), bad(`param \"v\": want boolean, got number`)},
		{"slice", req("strings", `[["a","b\n"]]`), ok("2")},
		{"slice with a bad element", req("strings", `[["a",1]]`), bad(`param \"v\": want string, got number`)},
		{"too many positional", req("int8", "[1,2]"), bad(`too many params: got 2, want at most 1`)},
		{"missing required", req("int8", ""), bad(`missing required param \"v\"`)},
		{"missing required, named", req("int8", "{}"), bad(`missing required param \"v\"`)},
		{"unknown named", req("int8", `{"v":1,"w":2}`), bad(`unknown param \"w\"`)},
		{"escaped named", req("int8", `{"\u0076":1}`), ok("1")},
		{"pointer absent", req("greet", `["bob"]`), ok(`"hello bob"`)},
		{"pointer null", req("greet", `["bob",null]`), ok(`"hello bob"`)},
		{"pointer given", req("greet", `{"greeting":"hi","name":"bob"}`), ok(`"hi bob"`)},
		{"default used", req("scale", `[2]`), ok("20")},
		{"default overridden", req("scale", `{"x":2,"factor":3}`), ok("6")},
		{"nullable absent", req("opt", ``), ok("null")},
		{"nullable null", req("opt", `[null]`), ok("null")},
		{"nullable given", req("opt", `[5]`), ok("5")},
		{"struct named", req("area", `{"width":2,"height":2,"title":"t"}`), ok(`"t:####"`)},
		{"struct positional", req("area", `[1,3]`), ok(`"untitled:###"`)},
		{"struct missing required", req("area", `{"width":2}`), bad(`missing required param \"height\"`)},
		{"struct unknown", req("area", `{"width":2,"height":1,"depth":1}`), bad(`unknown param \"depth\"`)},
		{"struct too many", req("area", `[1,2,"t",1,[],9]`), bad(`too many params: got 6, want at most 5`)},
		{"four params", req("four", `[1,2,3,4]`), ok("[4,3,2,1]")},
		{"three params named", req("three", `{"c":1.5,"b":true,"a":"x"}`), ok(`"x"`)},
		{"no params", req("nothing", ``), ok("null")},
		{"no params, empty array", req("nothing", `[]`), ok("null")},
		{"no params, one given", req("nothing", `[1]`), bad(`too many params: got 1, want at most 0`)},
		{"procedure", req("store", `[1]`), ok("null")},
		{"raw json param", req("echo", `[{"a":[1,{"b":null}]}]`), ok(`{"a":[1,{"b":null}]}`)},
		{"raw method without params", req("raw", ``), ok(`"no params"`)},
		{"raw method sees its params", req("raw", `[1, 2]`), ok(`6`)},
		{"variadic positional", req("count", `[1,2,3]`), ok("3")},
		{"variadic named", req("count", `{"values":[1,2]}`), ok("2")},
		{"variadic empty", req("count", ``), ok("0")},
		{"variadic bad element", req("count", `[1,"x"]`), bad(`param \"values\": want integer, got string`)},
	}
	s := paramsServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := call(s, tt.req); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestRegistrationErrors(t *testing.T) {
	s := rpccore.NewServer()
	add := rpccore.Func2(func(_ context.Context, a, b int) (int, error) { return a + b, nil }, "a", "b")
	if err := s.Register("add", add); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		method string
		m      *rpccore.Method
		want   string
	}{
		{"duplicate", "add", add, "registered twice"},
		{"reserved prefix", "rpc.x", add, "reserved"},
		{"empty name", "", add, "empty method name"},
		{"nil method", "x", nil, "nil method"},
		{"same param twice", "x", rpccore.Func2(func(_ context.Context, a, b int) (int, error) { return 0, nil }, "a", "a"),
			"used twice"},
		{"empty param name", "x", rpccore.Func1(func(_ context.Context, a int) (int, error) { return 0, nil }, ""), "empty name"},
		{"default of the wrong type", "x",
			rpccore.Func1(func(_ context.Context, a int) (int, error) { return 0, nil }, "a").Default("a", 1.5), "want int"},
		{"default for an unknown param", "x",
			rpccore.Func1(func(_ context.Context, a int) (int, error) { return 0, nil }, "a").Default("b", 1), "unknown param"},
		{"struct form of a non-struct", "x", rpccore.Struct(func(_ context.Context, a int) (int, error) { return 0, nil }),
			"needs a struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Register(tt.method, tt.m)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if err := s.Register("add", add); !errors.Is(err, rpccore.ErrDuplicateMethod) {
		t.Fatalf("duplicate: %v does not wrap ErrDuplicateMethod", err)
	}
}
