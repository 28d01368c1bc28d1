package rpccore_test

// spec_test.go checks every example of section 7 of the JSON-RPC 2.0
// specification: request in, exact response out (batch answers compared by
// id, since the specification lets them come in any order).

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

func TestSpecificationExamples(t *testing.T) {
	tests := []struct {
		name string
		req  string
		want string // "" means no response
	}{
		{"positional params", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
			`{"jsonrpc":"2.0","result":19,"id":1}`},
		{"positional params reversed", `{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`,
			`{"jsonrpc":"2.0","result":-19,"id":2}`},
		{"named params", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
			`{"jsonrpc":"2.0","result":19,"id":3}`},
		{"named params reordered", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`,
			`{"jsonrpc":"2.0","result":19,"id":4}`},
		{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, ``},
		{"notification of a missing method", `{"jsonrpc": "2.0", "method": "foobar"}`, ``},
		{"missing method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`},
		{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"invalid Request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`},
		{"batch with invalid JSON", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"empty array", `[]`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`},
		{"invalid batch of one", `[1]`,
			`[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]`},
		{"invalid batch", `[1,2,3]`, `[` +
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},` +
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},` +
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]`},
		{"batch", `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`, `[
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "result": 19, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ]`},
		{"batch of notifications", `[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`, ``},
	}
	s := demoServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(s.Process(context.Background(), []byte(tt.req), nil))
			if tt.want == "" || tt.want[0] != '[' {
				if got != tt.want {
					t.Fatalf("got  %s\nwant %s", got, tt.want)
				}
				return
			}
			assertSameAnswers(t, got, tt.want)
		})
	}
}

// assertSameAnswers compares two batch responses as sets of answers keyed by
// id (answers with a null id are compared in order among themselves).
func assertSameAnswers(t *testing.T, got, want string) {
	t.Helper()
	index := func(doc string) map[string][]any {
		var answers []map[string]any
		if err := json.Unmarshal([]byte(doc), &answers); err != nil {
			t.Fatalf("not a batch response: %v: %s", err, doc)
		}
		byID := map[string][]any{}
		for _, a := range answers {
			id, _ := json.Marshal(a["id"])
			byID[string(id)] = append(byID[string(id)], a)
		}
		return byID
	}
	if g, w := index(got), index(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
