package rpccore

import (
	"bytes"
	"context"
	"testing"
)

// TestDeferredDocAnswersFromItsCopyOfTheScan answers requests from a
// deferredDoc after the reader's buffer, which the scan pointed into, is
// overwritten: escaped names, string ids and params, notifications.
func TestDeferredDocAnswersFromItsCopyOfTheScan(t *testing.T) {
	s := NewServer()
	echo := Func1(func(_ context.Context, v string) (string, error) { return v, nil }, "v")
	if err := s.Register("echo", echo.Blocking()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, req := range []string{
		`{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`,
		`{"jsonrpc":"2.0","method":"ec\u0068o","params":["h\u00e9\n"],"id":"x\"y"}`,
		` { "id" : [] , "params" : { "v" : "named" } , "method" : "echo" , "jsonrpc" : "2.0" } `,
		`{"jsonrpc":"2.0","method":"echo","params":["no answer"]}`,
		`{"jsonrpc":"2.0","method":"echo","params":[1],"id":null}`,
	} {
		want := string(s.Process(ctx, []byte(req), nil))
		msg := []byte(req)
		var d document
		if !s.readSingle(msg, &d) {
			t.Fatalf("%s: not read", req)
		}
		doc := newDeferredDoc(msg, &d.single)
		copy(msg, bytes.Repeat([]byte("x"), len(msg)))
		if got := string(s.answerRequest(ctx, &doc.single, nil, nil)); got != want {
			t.Errorf("%s: answered %s from the copy, want %s", req, got, want)
		}
		doc.release()
	}
}
