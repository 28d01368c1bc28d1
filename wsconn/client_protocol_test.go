package wsconn_test

// client_protocol_test.go checks what RFC 6455 asks of a client, frame by
// frame, against a server framed by hand.

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

func TestClientMasksEveryFrameWithAFreshKey(t *testing.T) {
	messages := []string{"one", "two", strings.Repeat("three", 1000)}
	type seen struct {
		payload string
		mask    [4]byte
	}
	frames := make(chan seen, len(messages))
	closed := make(chan ws.StatusCode, 1)
	url := rawServer(t, func(conn net.Conn) {
		for range messages {
			f, err := readClientFrame(conn)
			if err != nil || f.Header.OpCode != ws.OpText {
				t.Errorf("read %v frame: %v", f.Header.OpCode, err)
				return
			}
			frames <- seen{string(f.Payload), f.Header.Mask}
		}
		code, err := awaitClientClose(conn)
		if err != nil {
			t.Error(err)
		}
		closed <- code
		_ = ws.WriteFrame(conn, ws.NewCloseFrame(ws.NewCloseFrameBody(code, "")))
	})
	c := dialClient(t, url, wsconn.DialOptions{})
	for _, m := range messages {
		msg := []byte(m)
		if err := c.WriteMessage(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
		if string(msg) != m {
			t.Fatalf("the caller's message became %.20q", msg)
		}
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	masks := map[[4]byte]bool{}
	for _, m := range messages {
		f := <-frames
		if f.payload != m {
			t.Fatalf("the server unmasked %.20q, want %.20q", f.payload, m)
		}
		masks[f.mask] = true
	}
	if len(masks) != len(messages) {
		t.Fatalf("%d frames were masked with %d keys", len(messages), len(masks))
	}
	if err := c.Close(wsconn.StatusNormalClosure, "bye"); err != nil {
		t.Fatal(err)
	}
	if code := <-closed; code != ws.StatusNormalClosure {
		t.Fatalf("the client closed with %d", code)
	}
}

func TestClientAnswersPingsWithMaskedPongs(t *testing.T) {
	pong := make(chan ws.Frame, 1)
	url := rawServer(t, func(conn net.Conn) {
		if err := ws.WriteFrame(conn, ws.NewPingFrame([]byte("are you there"))); err != nil {
			t.Error(err)
			return
		}
		f, err := readClientFrame(conn)
		if err != nil {
			t.Error(err)
		}
		pong <- f
	})
	c := dialClient(t, url, wsconn.DialOptions{})
	go c.ReadMessage(context.Background(), nil) // answers the ping; ends when the server closes
	f := <-pong
	if f.Header.OpCode != ws.OpPong || string(f.Payload) != "are you there" {
		t.Fatalf("the ping was answered with %v %q", f.Header.OpCode, f.Payload)
	}
}

func TestClientFailsMaskedServerFramesWith1002(t *testing.T) {
	closed := make(chan ws.StatusCode, 1)
	url := rawServer(t, func(conn net.Conn) {
		if err := ws.WriteFrame(conn, ws.MaskFrame(ws.NewTextFrame([]byte(`{"jsonrpc":"2.0","result":3,"id":1}`)))); err != nil {
			t.Error(err)
			return
		}
		code, err := awaitClientClose(conn)
		if err != nil {
			t.Error(err)
		}
		closed <- code
	})
	c := dialClient(t, url, wsconn.DialOptions{})
	msg, err := c.ReadMessage(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "1002") {
		t.Fatalf("a masked frame from the server was read as %q, %v", msg, err)
	}
	if code := <-closed; code != ws.StatusProtocolError {
		t.Fatalf("the client closed with %d, want 1002", code)
	}
}

func TestClientReadsWhatCameWithThe101(t *testing.T) {
	url := "ws://" + rawListener(t, func(conn net.Conn) {
		r, err := http.ReadRequest(bufio.NewReader(conn))
		if err != nil {
			t.Error(err)
			return
		}
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		answer := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"
		frame := ws.MustCompileFrame(ws.NewTextFrame([]byte("sent with the 101")))
		if _, err := conn.Write(append([]byte(answer), frame...)); err != nil { // one write
			t.Error(err)
			return
		}
		_, _ = awaitClientClose(conn)
	})
	c := dialClient(t, url, wsconn.DialOptions{})
	if got := receive(t, c); got != "sent with the 101" {
		t.Fatalf("read %q", got)
	}
}
