package tests

// rpc_test.go checks what the endpoints answer: batches, the limits, the
// method filter, and services other than demo.

import (
	"strings"
	"testing"
)

func TestBatches(t *testing.T) {
	base := startInProcess(t)
	tests := []struct{ name, req, want string }{
		// The specification's own example of a batch (section 7).
		{"specification example", `[
			{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
			{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
			{"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
			{"foo": "boo"},
			{"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
			{"jsonrpc": "2.0", "method": "get_data", "id": "9"}
		]`, `[{"jsonrpc":"2.0","result":7,"id":"1"},{"jsonrpc":"2.0","result":19,"id":"2"},` +
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},` +
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"5"},` +
			`{"jsonrpc":"2.0","result":["hello",5],"id":"9"}]`},
		{"empty array", `[]`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`},
		{"array of one invalid item", `[1]`,
			`[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]`},
		{"the five benchmark calls", `[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},` +
			`{"jsonrpc":"2.0","method":"addInt","params":[1,7],"id":2},` +
			`{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[1.23],"id":3},` +
			`{"jsonrpc":"2.0","method":"Test2","params":[3.456],"id":4},` +
			`{"jsonrpc":"2.0","method":"StringMe","params":["Foo"],"id":5}]`,
			`[{"jsonrpc":"2.0","result":3,"id":1},{"jsonrpc":"2.0","result":8,"id":2},` +
				`{"jsonrpc":"2.0","result":1.23,"id":3},{"jsonrpc":"2.0","result":3.456,"id":4},` +
				`{"jsonrpc":"2.0","result":"Foo","id":5}]`},
		{"30-digit id echoed", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":123456789012345678901234567890}`,
			`{"jsonrpc":"2.0","result":3,"id":123456789012345678901234567890}`},
	}
	for _, pc := range protocolClients() {
		for _, tt := range tests {
			t.Run(pc.name+"/"+tt.name, func(t *testing.T) {
				wantAnswer(t, rpc(t, pc.client, base+"/rpc", tt.req), tt.want)
			})
		}
	}
}

func TestLimits(t *testing.T) {
	base := startInProcess(t)
	client := newClient(true, true)
	call := func(id int) string {
		return `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":` + strings.Repeat("1", id) + `}`
	}
	tests := []struct{ name, req, contains string }{
		{"batch at max_batch", "[" + call(1) + "," + call(2) + "," + call(3) + "]", `"result":3,"id":111}]`},
		{"batch over max_batch", "[" + call(1) + "," + call(2) + "," + call(3) + "," + call(4) + "]",
			`"code":-32600`},
		{"at max_depth", `{"jsonrpc":"2.0","method":"echo","params":[[["x"]]],"id":1}`, `"result":[["x"]]`},
		{"over max_depth", `{"jsonrpc":"2.0","method":"echo","params":[[[["x"]]]],"id":1}`, `"code":-32600`},
		{"answer over max_response_body", `{"jsonrpc":"2.0","method":"StringMe","params":["` +
			strings.Repeat("b", 300) + `"],"id":1}`, `{"jsonrpc":"2.0","error":{"code":-32003,"message":"Response too large"},"id":1}`},
		{"batch crossing max_response_body", `[{"jsonrpc":"2.0","method":"StringMe","params":["` +
			strings.Repeat("c", 120) + `"],"id":1},{"jsonrpc":"2.0","method":"StringMe","params":["` +
			strings.Repeat("d", 120) + `"],"id":2}]`, `{"jsonrpc":"2.0","error":{"code":-32003,"message":"Response too large"},"id":2}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := rpc(t, client, base+"/limited", tt.req)
			if res.status != 200 || !strings.Contains(res.body, tt.contains) {
				t.Errorf("status %d, answer %s\n does not contain %s", res.status, res.body, tt.contains)
			}
		})
	}
}

func TestAllowDeny(t *testing.T) {
	base := startInProcess(t)
	client := newClient(true, true)
	notFound := `"error":{"code":-32601,"message":"Method not found"}`
	for req, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`:      `"result":3`,
		`{"jsonrpc":"2.0","method":"subtract","params":[3,2],"id":1}`: `"result":1`,
		`{"jsonrpc":"2.0","method":"get_data","id":1}`:                `"result":["hello",5]`,
		`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}`:   notFound, // denied
		`{"jsonrpc":"2.0","method":"StringMe","params":["x"],"id":1}`: notFound, // not allowed
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}`:        notFound, // not allowed
	} {
		res := rpc(t, client, base+"/filtered", req)
		if res.status != 200 || !strings.Contains(res.body, want) {
			t.Errorf("%s: status %d, answer %s, want %s", req, res.status, res.body, want)
		}
	}
	// The same methods are exposed on the unfiltered endpoint.
	wantAnswer(t, rpc(t, client, base+"/rpc", `{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}`),
		`{"jsonrpc":"2.0","result":3,"id":1}`)
}

func TestGreeterService(t *testing.T) {
	base := startInProcess(t)
	client := newClient(true, true)
	for req, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"greet","params":["Ann"],"id":1}`:                     `{"jsonrpc":"2.0","result":"Hello, Ann!","id":1}`,
		`{"jsonrpc":"2.0","method":"greet","params":{"name":"Bo","times":2},"id":2}`:     `{"jsonrpc":"2.0","result":"Hello, Bo! Hello, Bo!","id":2}`,
		`{"jsonrpc":"2.0","method":"greet","params":["Cy",9],"id":3}`:                    `{"jsonrpc":"2.0","error":{"code":1001,"message":"times out of range","data":{"min":1,"max":3}},"id":3}`,
		`{"jsonrpc":"2.0","method":"introduce","params":{"name":"Ann","age":42},"id":4}`: `{"jsonrpc":"2.0","result":"Ann is 42","id":4}`,
		`{"jsonrpc":"2.0","method":"introduce","params":["Bo",7,"Oslo"],"id":5}`:         `{"jsonrpc":"2.0","result":"Bo is 7 and lives in Oslo","id":5}`,
	} {
		wantAnswer(t, rpc(t, client, base+"/rpc", req), want)
	}
}
