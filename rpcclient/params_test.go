package rpcclient

import "testing"

func TestRequestsAreWrittenInTheOrderServersReadFastest(t *testing.T) {
	for _, tt := range []struct {
		id   []byte
		args []any
		want string
	}{
		{[]byte("7"), []any{1, 2}, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}`},
		{[]byte(`"s1"`), nil, `{"jsonrpc":"2.0","method":"add","id":"s1"}`},
		{nil, []any{Named{"a": 1}}, `{"jsonrpc":"2.0","method":"add","params":{"a":1}}`},
	} {
		got, err := appendRequest(nil, "add", tt.id, tt.args)
		if err != nil || string(got) != tt.want {
			t.Errorf("appendRequest(%s, %v) = %s, %v; want %s", tt.id, tt.args, got, err, tt.want)
		}
	}
	if got := appendRequestParams(nil, "sub", []byte("3"), []byte(`["x"]`)); string(got) != `{"jsonrpc":"2.0","method":"sub","params":["x"],"id":3}` {
		t.Errorf("appendRequestParams = %s", got)
	}
}
