package tests

// utf8_test.go checks the UTF-8 rules end to end: a document holding a
// string that is not valid UTF-8 is -32700 over HTTP and in a binary
// WebSocket message, a text WebSocket message that is not valid UTF-8
// closes the connection with 1007, and no answer carries invalid UTF-8.

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// invalidUTF8Documents hold an invalid byte in each place a string can be.
var invalidUTF8Documents = map[string]string{
	"id":          "{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"a\"],\"id\":\"\xff\"}",
	"method":      "{\"jsonrpc\":\"2.0\",\"method\":\"String\xc3\",\"params\":[\"a\"],\"id\":1}",
	"param":       "{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"\xed\xa0\x80\"],\"id\":1}",
	"member name": "{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"a\"],\"\xfe\":1,\"id\":1}",
	"batch item":  "[{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"ok\"],\"id\":1},{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"\x80\"],\"id\":2}]",
}

const parseErrorAnswer = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`

func TestInvalidUTF8OverHTTP(t *testing.T) {
	base, _ := startWebSocketSite(t)
	url := "https" + base[len("wss"):] + "/rpc"
	c := newClient(false, true)
	for name, doc := range invalidUTF8Documents {
		t.Run(name, func(t *testing.T) {
			wantAnswer(t, rpc(t, c, url, doc), parseErrorAnswer)
		})
	}
}

func TestInvalidUTF8OverWebSocket(t *testing.T) {
	base, _ := startWebSocketSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()

	// In binary messages the JSON parser answers, and the connection goes on.
	c := mustDial(t, base+"/rpc")
	for name, doc := range invalidUTF8Documents {
		if err := c.Write(ctx, websocket.MessageBinary, []byte(doc)); err != nil {
			t.Fatal(err)
		}
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(msg) != parseErrorAnswer || !utf8.Valid(msg) {
			t.Errorf("%s: answer %q, want %s", name, msg, parseErrorAnswer)
		}
	}
	wsSend(t, c, `{"jsonrpc":"2.0","method":"StringMe","params":["é"],"id":9}`)
	if a := wsRecv(t, c); a["result"] != "é" {
		t.Fatalf("after the bad messages: %v", a)
	}

	// A text message must be UTF-8 itself (RFC 6455 §8.1): 1007.
	text := mustDial(t, base+"/rpc")
	if err := text.Write(ctx, websocket.MessageText, []byte(invalidUTF8Documents["param"])); err != nil {
		t.Fatal(err)
	}
	if status := closeStatus(t, text); status != websocket.StatusInvalidFramePayloadData {
		t.Errorf("close status %d after invalid UTF-8 in a text message, want 1007", status)
	}
}
