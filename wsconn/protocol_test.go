package wsconn_test

// protocol_test.go checks what RFC 6455 asks of a server, frame by frame.

import (
	"strings"
	"testing"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

const addCall = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`

// expectAnswer reads frames until a text message, which must be want.
func (c *rawClient) expectAnswer(want string) {
	c.t.Helper()
	for {
		h, p := c.next()
		switch h.OpCode {
		case ws.OpText:
			if string(p) != want {
				c.t.Fatalf("answered %q, want %q", p, want)
			}
			return
		case ws.OpClose:
			code, reason := ws.ParseCloseFrameData(p)
			c.t.Fatalf("closed with %d %q, want the answer %s", code, reason, want)
		}
	}
}

func TestTextMessageThatIsNotUTF8ClosesWith1007(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialRaw(t, url)
	c.send(text(`{"jsonrpc":"2.0","method":"StringMe","params":["` + "\xff" + `"],"id":1}`))
	c.expectClose(ws.StatusInvalidFramePayloadData)
}

func TestTextCheckedAsAWholeMessage(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialRaw(t, url)
	// "é" is split between two fragments: each alone is not UTF-8, the
	// message is.
	msg := []byte(`{"jsonrpc":"2.0","method":"StringMe","params":["é"],"id":1}`)
	cut := strings.Index(string(msg), "é") + 1
	c.send(frame{op: ws.OpText, notFin: true, payload: msg[:cut]}, frame{op: ws.OpContinuation, payload: msg[cut:]})
	c.expectAnswer(`{"jsonrpc":"2.0","result":"é","id":1}`)
	// An invalid sequence split the same way still closes.
	c.send(frame{op: ws.OpText, notFin: true, payload: []byte(`["a`)}, frame{op: ws.OpContinuation, payload: []byte("\xc3\"]")})
	c.expectClose(ws.StatusInvalidFramePayloadData)
}

func TestBinaryMessagesAreNotCheckedForUTF8(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialRaw(t, url)
	// The JSON processor judges the document; the connection stays open.
	c.send(frame{op: ws.OpBinary, payload: []byte(`{"jsonrpc":"2.0","method":"StringMe","params":["` + "\xff" + `"],"id":1}`)})
	if h, p := c.next(); h.OpCode != ws.OpText {
		t.Fatalf("a binary message that is not UTF-8 was answered with opcode %v %q", h.OpCode, p)
	}
	c.send(frame{op: ws.OpBinary, payload: []byte(addCall)})
	c.expectAnswer(`{"jsonrpc":"2.0","result":3,"id":1}`)
}

func TestCloseFramesAreAnswered(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    frame
		want ws.StatusCode // 0: an empty close frame
	}{
		{"normal", closeFrame(1000, "bye"), 1000},
		{"going away", closeFrame(1001, ""), 1001},
		{"internal error", closeFrame(1011, "oops"), 1011},
		{"service restart (registered)", closeFrame(1012, ""), 1012},
		{"try again later (registered)", closeFrame(1013, ""), 1013},
		{"bad gateway (registered)", closeFrame(1014, ""), 1014},
		{"application", closeFrame(3000, "app"), 3000},
		{"private", closeFrame(4999, "ünïcode"), 4999},
		{"no status", frame{op: ws.OpClose}, 0},
		{"one byte", frame{op: ws.OpClose, payload: []byte{3}}, 1002},
		{"status 0", closeFrame(0, ""), 1002},
		{"status 999", closeFrame(999, ""), 1002},
		{"status 1004", closeFrame(1004, ""), 1002},
		{"status 1005", closeFrame(1005, ""), 1002},
		{"status 1006", closeFrame(1006, ""), 1002},
		{"status 1015", closeFrame(1015, ""), 1002},
		{"status 1016", closeFrame(1016, ""), 1002},
		{"status 2999", closeFrame(2999, ""), 1002},
		{"status 5000", closeFrame(5000, ""), 1002},
		{"status 65535", closeFrame(65535, ""), 1002},
		{"reason not UTF-8", closeFrame(1000, "\xffbye"), 1007},
		{"registered status, reason not UTF-8", closeFrame(1012, "\xc3"), 1007},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
			c := dialRaw(t, url)
			c.send(text(addCall))
			c.expectAnswer(`{"jsonrpc":"2.0","result":3,"id":1}`)
			c.send(tt.f)
			reason := c.expectClose(tt.want)
			if tt.want == 1000 && reason == "bye" {
				t.Fatalf("the reason was echoed")
			}
		})
	}
}

func TestBrokenFramesCloseWith1002(t *testing.T) {
	for _, tt := range []struct {
		name   string
		frames []frame
	}{
		{"unmasked", []frame{{op: ws.OpText, payload: []byte(addCall), unmasked: true}}},
		{"continuation first", []frame{{op: ws.OpContinuation, payload: []byte(addCall)}}},
		{"new message amid fragments", []frame{{op: ws.OpText, notFin: true, payload: []byte("[")}, text(addCall)}},
		{"reserved data opcode", []frame{{op: 3, payload: []byte(addCall)}}},
		{"reserved control opcode", []frame{{op: 0xb}}},
		{"rsv bit without an extension", []frame{{op: ws.OpText, rsv: ws.Rsv(true, false, false), payload: []byte(addCall)}}},
		{"fragmented ping", []frame{{op: ws.OpPing, notFin: true}}},
		{"ping over 125 bytes", []frame{{op: ws.OpPing, payload: make([]byte, 126)}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
			c := dialRaw(t, url)
			c.send(tt.frames...)
			c.expectClose(ws.StatusProtocolError)
		})
	}
}

func TestControlFramesAmidFragments(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialRaw(t, url)
	c.send(
		frame{op: ws.OpText, notFin: true, payload: []byte(addCall[:10])},
		frame{op: ws.OpPing, payload: []byte("are you there")},
		frame{op: ws.OpContinuation, notFin: true, payload: []byte(addCall[10:20])},
		frame{op: ws.OpPong, payload: []byte("unasked")},
		frame{op: ws.OpContinuation, payload: []byte(addCall[20:])},
	)
	h, p := c.next()
	if h.OpCode != ws.OpPong || string(p) != "are you there" {
		t.Fatalf("the ping was answered with %v %q", h.OpCode, p)
	}
	c.expectAnswer(`{"jsonrpc":"2.0","result":3,"id":1}`)
}

func TestMessageTooBigIsRefusedBeforeItsPayload(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{MaxMessage: 100}, rpccore.PeerConfig{})
	t.Run("one frame", func(t *testing.T) {
		c := dialRaw(t, url)
		// Only the header: a gigabyte is announced, none of it sent.
		c.send(frame{op: ws.OpText, length: 1 << 30})
		c.expectClose(ws.StatusMessageTooBig)
	})
	t.Run("fragments", func(t *testing.T) {
		c := dialRaw(t, url)
		part := []byte(strings.Repeat(" ", 60))
		c.send(frame{op: ws.OpText, notFin: true, payload: part}, frame{op: ws.OpContinuation, payload: part})
		c.expectClose(ws.StatusMessageTooBig)
	})
}

func TestTextNotUTF8AnywhereClosesWith1007AfterTheAnswersBefore(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	for name, doc := range map[string]string{
		"member name":        `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1,"` + "\xff" + `":0}`,
		"method":             `{"jsonrpc":"2.0","method":"add` + "\xc3" + `","params":[1,2],"id":1}`,
		"id":                 `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"` + "\xed\xa0\x80" + `"}`,
		"named param":        `{"jsonrpc":"2.0","method":"StringMe","params":{"s":"` + "\xfe" + `"},"id":1}`,
		"in a batch":         `[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"StringMe","params":["` + "\x80" + `"],"id":2}]`,
		"outside a string":   `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}` + "\xff",
		"and invalid JSON":   `{"jsonrpc":"2.0","method":` + "\xff",
		"a notification":     `{"jsonrpc":"2.0","method":"StringMe","params":["` + "\xff" + `"]}`,
		"an answer's result": `{"jsonrpc":"2.0","result":"` + "\xff" + `","id":"s1"}`,
	} {
		t.Run(name, func(t *testing.T) {
			c := dialRaw(t, url)
			c.send(text(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}`), text(doc))
			c.expectAnswer(`{"jsonrpc":"2.0","result":3,"id":7}`)
			c.expectClose(ws.StatusInvalidFramePayloadData)
		})
	}
}

func TestTextThatIsUTF8ButNotJSONIsAnsweredAndTheConnectionGoesOn(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialRaw(t, url)
	c.send(text(`{"jsonrpc":"2.0","method":"StringMe","params":["é"`), text(`{"jsonrpc":"2.0","method":"StringMe","params":["é"],"id":2}`))
	c.expectAnswer(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`)
	c.expectAnswer(`{"jsonrpc":"2.0","result":"é","id":2}`)
}

func TestAFailureClosesAfterTheAnswersToTheMessagesBeforeIt(t *testing.T) {
	url, _, served := server(t, wsconn.Options{MaxMessage: 256}, rpccore.PeerConfig{})
	call := text(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}`)
	for _, c := range []struct {
		name string
		bad  frame
		want ws.StatusCode
	}{
		{"message over the limit", text(`["` + strings.Repeat("a", 300) + `"]`), ws.StatusMessageTooBig},
		{"unmasked frame", frame{op: ws.OpText, payload: []byte(`[]`), unmasked: true}, ws.StatusProtocolError},
		{"reserved bits", frame{op: ws.OpText, rsv: 4, payload: []byte(`[]`)}, ws.StatusProtocolError},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := dialRaw(t, url)
			conn.send(call, call, c.bad)
			conn.expectAnswer(`{"jsonrpc":"2.0","result":3,"id":7}`)
			conn.expectAnswer(`{"jsonrpc":"2.0","result":3,"id":7}`)
			conn.expectClose(c.want)
			conn.send(closeFrame(uint16(c.want), "")) // the closing handshake's end
			if err := <-served; err == nil {
				t.Error("Serve reported no failure")
			}
		})
	}
}
