package rpccore_test

// strict_test.go holds the rules beyond RFC 8259's grammar that make a
// document -32700: invalid UTF-8, escaped lone surrogates and member names
// given twice, wherever they are.

import (
	"context"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

const parseError = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`

// strictCases are documents that break one of the rules, named by where.
var strictCases = []struct{ name, doc string }{
	{"invalid UTF-8 in the id", "{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":\"a\xffb\"}"},
	{"invalid UTF-8 in the id, read the general way", "{ \"id\":\"\xc3\",\"jsonrpc\":\"2.0\",\"method\":\"get_data\"}"},
	{"invalid UTF-8 in the method", "{\"jsonrpc\":\"2.0\",\"method\":\"get_\xe2\x82data\",\"id\":1}"},
	{"invalid UTF-8 in a string param", "{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"F\xf0o\"],\"id\":1}"},
	{"UTF-8 encoded surrogate in a param", "{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"\xed\xa0\x80\"],\"id\":1}"},
	{"overlong encoding in a named param", "{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":{\"s\":\"\xc0\xaf\"},\"id\":1}"},
	{"invalid UTF-8 in a member name", "{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"\xff\":1,\"id\":1}"},
	{"invalid UTF-8 in a param name", "{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":{\"minuend\xff\":1},\"id\":1}"},
	{"invalid UTF-8 nested in params", "{\"jsonrpc\":\"2.0\",\"method\":\"update\",\"params\":[{\"a\":[\"\x80\"]}],\"id\":1}"},
	{"invalid UTF-8 in the version", "{\"jsonrpc\":\"2.0\xff\",\"method\":\"get_data\",\"id\":1}"},
	{"invalid UTF-8 in a result", "{\"jsonrpc\":\"2.0\",\"result\":\"\xff\",\"id\":1}"},
	{"lone high surrogate in the id", `{"jsonrpc":"2.0","method":"get_data","id":"\ud800"}`},
	{"lone low surrogate in the method", `{"jsonrpc":"2.0","method":"get_data\udc00","id":1}`},
	{"high surrogate then a letter in a param", `{"jsonrpc":"2.0","method":"StringMe","params":["\ud83dx"],"id":1}`},
	{"lone surrogate in a member name", `{"jsonrpc":"2.0","method":"get_data","\udfff":1,"id":1}`},
	{"lone surrogate nested", `{"jsonrpc":"2.0","method":"update","params":[[{"\ud800\ud800":1}]],"id":1}`},
	{"method twice", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1,"method":"addInt"}`},
	{"method twice, once escaped", `{"jsonrpc":"2.0","method":"add","m\u0065thod":"addInt","params":[1,2],"id":1}`},
	{"params twice", `{"jsonrpc":"2.0","method":"add","params":[1,2],"params":[3,4],"id":1}`},
	{"id twice", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1,"id":2}`},
	{"jsonrpc twice", `{"jsonrpc":"2.0","jsonrpc":"2.0","method":"get_data","id":1}`},
	{"result twice", `{"jsonrpc":"2.0","result":1,"result":2,"id":1}`},
	{"error twice", `{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"error":null,"id":1}`},
	{"an undefined member twice", `{"jsonrpc":"2.0","method":"get_data","x":1,"x":2,"id":1}`},
	{"an undefined member twice, once escaped", `{"jsonrpc":"2.0","method":"get_data","xy":1,"\u0078y":2,"id":1}`},
	{"a param name twice", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":3,"minuend":1},"id":1}`},
	{"a param name twice, once escaped", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":3,"subtrahend":1,"minu\u0065nd":1},"id":1}`},
	{"a name twice in a nested object", `{"jsonrpc":"2.0","method":"update","params":[{"a":{"b":1,"b":2}}],"id":1}`},
	{"a name twice in an invalid request's id", `{"jsonrpc":"2.0","method":"get_data","id":{"a":1,"a":1}}`},
	{"a bad item in a batch", `[{"jsonrpc":"2.0","method":"get_data","id":1},{"jsonrpc":"2.0","method":"get_data","id":2,"id":3}]`},
	{"invalid UTF-8 in a batch item", "[{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":1},\"\xff\"]"},
}

// TestStrictRulesAreParseErrors checks that each case is -32700 with id
// null and that Valid refuses it.
func TestStrictRulesAreParseErrors(t *testing.T) {
	s := demoServer(t)
	for _, c := range strictCases {
		if got := call(s, c.doc); got != parseError {
			t.Errorf("%s: %q answered %s, want %s", c.name, c.doc, got, parseError)
		}
		if rpccore.Valid([]byte(c.doc)) {
			t.Errorf("%s: Valid(%q) = true", c.name, c.doc)
		}
	}
}

// TestStrictRulesNearMisses checks documents that come close to the rules
// and are fine.
func TestStrictRulesNearMisses(t *testing.T) {
	s := demoServer(t)
	for _, c := range []struct{ name, doc, want string }{
		{"UTF-8 id echoed unchanged", "{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}",
			"{\"jsonrpc\":\"2.0\",\"result\":[\"hello\",5],\"id\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}"},
		{"escaped pair in a param", `{"jsonrpc":"2.0","method":"StringMe","params":["\ud83d\ude00"],"id":1}`,
			"{\"jsonrpc\":\"2.0\",\"result\":\"\xf0\x9f\x98\x80\",\"id\":1}"},
		{"U+FFFD itself", "{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"\xef\xbf\xbd\"],\"id\":1}",
			"{\"jsonrpc\":\"2.0\",\"result\":\"\xef\xbf\xbd\",\"id\":1}"},
		{"the same name in sibling objects", `{"jsonrpc":"2.0","method":"update","params":[{"a":1},{"a":1}],"id":1}`,
			`{"jsonrpc":"2.0","result":null,"id":1}`},
		{"a param named like a member", `{"jsonrpc":"2.0","method":"update","params":[{"method":1,"id":2}],"id":1}`,
			`{"jsonrpc":"2.0","result":null,"id":1}`},
		{"the same request twice in a batch", `[{"jsonrpc":"2.0","method":"get_data","id":1},{"jsonrpc":"2.0","method":"get_data","id":1}]`,
			`[{"jsonrpc":"2.0","result":["hello",5],"id":1},{"jsonrpc":"2.0","result":["hello",5],"id":1}]`},
	} {
		if got := call(s, c.doc); got != c.want {
			t.Errorf("%s: %q answered %q, want %q", c.name, c.doc, got, c.want)
		}
	}
}

// TestAppendStringWritesValidUTF8 checks that invalid UTF-8 given to the
// encoder comes out as U+FFFD, so that answers stay valid JSON.
func TestAppendStringWritesValidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"a\xffb":       `"a\ufffdb"`,
		"\xed\xa0\x80": `"\ufffd\ufffd\ufffd"`,
		"é\xc3":        "\"\xc3\xa9\\ufffd\"",
	} {
		if got := string(rpccore.AppendString(nil, in)); got != want || !rpccore.Valid([]byte(got)) {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
	s := rpccore.NewServer()
	if err := s.Register("bad", rpccore.Func0(func(context.Context) (string, error) { return "x\xff", nil })); err != nil {
		t.Fatal(err)
	}
	if got, want := call(s, `{"jsonrpc":"2.0","method":"bad","id":1}`), `{"jsonrpc":"2.0","result":"x\ufffd","id":1}`; got != want {
		t.Errorf("a result of invalid UTF-8 answered %s, want %s", got, want)
	}
}
