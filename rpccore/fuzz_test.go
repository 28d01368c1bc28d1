package rpccore_test

// fuzz_test.go fuzzes Process and the validator. Inputs that found bugs are
// kept under testdata/fuzz.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// fuzzSeeds are documents that reach every branch of the request reader.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
	`{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":"x"}`,
	`{"jsonrpc":"2.0","method":"sum","params":[1,2,4]}`,
	`[{"jsonrpc":"2.0","method":"get_data","id":9},{"foo":"boo"},1,[],{"jsonrpc":"2.0","method":"add","params":[1,"2"],"id":null}]`,
	`{"jsonrpc":"2.0","method":"su\u0062tract","params":[1e400,-0.0],"id":1.5e3}`,
	`{"jsonrpc":"2.0","method":"StringMe","params":["\ud83d\ude00\u0000\"\\"],"id":"\u00e9"}`,
	`{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[null],"id":[1]}`,
	`[{"jsonrpc":"2.0","method":"addInt","params":[9223372036854775807,1],"id":2}]`,
	`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
	`[]`, `[1]`, `{}`, `null`, ` `, `"\u12"`, `{"a":tru}`, "[\"\xff\"]",
	// The canonical layout the reader takes a shorter way through, and
	// near misses of it.
	`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
	`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1 }`,
	`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":true}`,
	`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"a","method":"addInt"}`,
	`{"jsonrpc":"2.0","method":"add","params":[1,2],"params":[3],"id":-0}`,
	`{"jsonrpc":"2.0","method":"add","id":1,"params":[1,2]}`,
	`{"jsonrpc":"2.0","method":"add"}`,
	`{"jsonrpc":"2.0","method":"add","params":[]}`,
	`{"jsonrpc":"2.0","method":"a\"dd","params":[1,2],"id":1}`,
	// The strict rules: UTF-8, surrogates, member names given twice.
	"{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"],\"id\":\"\xed\x9f\xbf\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[1,2],\"id\":\"\xed\xa0\x80\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"\xc0\xaf\"],\"id\":1}",
	`{"jsonrpc":"2.0","method":"StringMe","params":["\ud800"],"id":1}`,
	`{"jsonrpc":"2.0","method":"StringMe","params":["\udc00\ud800"],"id":1}`,
	`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"minu\u0065nd":2},"id":1}`,
	`{"jsonrpc":"2.0","method":"echo","params":[{"a":{"b":1,"b":2}}],"id":1}`,
	`{"jsonrpc":"2.0","m\u0065thod":"add","method":"add","params":[1,2],"id":1}`,
	`{"jsonrpc":"2.0","method":"add","x":1,"x":2,"params":[1,2],"id":1}`,
	`{"jsonrpc":"2.0","method":"echo","params":[{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"a":18}],"id":1}`,
}

// fuzzServer answers with the demo methods, plus ones that panic, fail and
// echo raw JSON, so that every kind of answer is produced.
func fuzzServer(tb testing.TB) *rpccore.Server {
	s := demoServer(tb)
	for name, m := range map[string]*rpccore.Method{
		"panic": rpccore.Func0(func(context.Context) (int, error) { panic("fuzz") }),
		"fail": rpccore.Func1(func(_ context.Context, msg string) (int, error) {
			return 0, &rpccore.Error{Code: 1, Message: msg, Data: msg}
		}, "msg"),
		"echo": rpccore.Func1(func(_ context.Context, v rpccore.RawJSON) (rpccore.RawJSON, error) { return v, nil }, "v"),
	} {
		if err := s.Register(name, m); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func FuzzProcess(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	s := fuzzServer(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		out := s.Process(context.Background(), doc, nil)
		// The canonical layout is read a shorter way; with a space after
		// the brace the same object is read the general way, and must get
		// the same answer.
		if spaced, ok := strings.CutPrefix(string(doc), `{"jsonrpc":"2.0",`); ok {
			general := s.Process(context.Background(), []byte(`{ "jsonrpc":"2.0",`+spaced), nil)
			if string(general) != string(out) {
				t.Fatalf("%q answered %q, but %q when read the general way", doc, out, general)
			}
		}
		if len(out) == 0 {
			if !strictValid(doc) {
				t.Fatalf("invalid JSON got no answer: %q", doc)
			}
			return
		}
		if !strictValid(out) {
			t.Fatalf("answer is not JSON: %q -> %q", doc, out)
		}
		parseError := strings.Contains(string(out), `"code":-32700`) && strings.HasPrefix(string(out), `{`)
		if valid := strictValid(doc); valid == parseError {
			t.Fatalf("strictValid=%t but parse error=%t: %q -> %q", valid, parseError, doc, out)
		}
		var answers []map[string]json.RawMessage
		if out[0] == '[' {
			if err := json.Unmarshal(out, &answers); err != nil || len(answers) == 0 {
				t.Fatalf("bad batch answer %q: %v", out, err)
			}
		} else {
			var one map[string]json.RawMessage
			if err := json.Unmarshal(out, &one); err != nil {
				t.Fatalf("bad answer %q: %v", out, err)
			}
			answers = append(answers, one)
		}
		for _, a := range answers {
			_, hasResult := a["result"]
			_, hasError := a["error"]
			_, hasID := a["id"]
			if string(a["jsonrpc"]) != `"2.0"` || !hasID || hasResult == hasError {
				t.Fatalf("malformed answer object %v in %q -> %q", a, doc, out)
			}
		}
	})
}

func FuzzValid(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if got, want := rpccore.Valid(doc), strictValid(doc); got != want {
			t.Fatalf("Valid(%q) = %t, strictValid says %t", doc, got, want)
		}
	})
}
