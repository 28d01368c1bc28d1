package wsconn_test

// interop_test.go runs wsconn's client against another implementation's
// server, github.com/coder/websocket. (Its client against wsconn's server
// is what serve_test.go uses throughout.)

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// coderEchoServer echoes every message; on "ping" it pings the client and
// answers with the outcome. It reports the status the client closed with.
func coderEchoServer(t *testing.T) (url string, closed <-chan websocket.StatusCode) {
	t.Helper()
	status := make(chan websocket.StatusCode, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20)
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		for {
			typ, msg, err := c.Read(ctx)
			if err != nil {
				status <- websocket.CloseStatus(err)
				return
			}
			if string(msg) == "ping" {
				go func() { // the pong is read by this loop
					err := c.Ping(ctx)
					_ = c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, "pinged: %v", err))
				}()
				continue
			}
			if err := c.Write(ctx, typ, msg); err != nil {
				t.Error(err)
				return
			}
		}
	}))
	t.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http"), status
}

func TestClientAgainstACoderWebsocketServer(t *testing.T) {
	url, closed := coderEchoServer(t)
	c := dialClient(t, url, wsconn.DialOptions{})
	ctx := context.Background()
	// Every frame length, written together and flushed once.
	var messages []string
	for i, n := range []int{0, 1, 125, 126, 65535, 65536, 300000} {
		messages = append(messages, strings.Repeat(string(rune('a'+i)), n))
	}
	for _, m := range messages {
		if err := c.WriteMessage(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range messages {
		if got := receive(t, c); got != m {
			t.Fatalf("echoed %d bytes %.10q, want %d bytes %.10q", len(got), got, len(m), m)
		}
	}
	send(t, c, "ping")
	if got := receive(t, c); got != "pinged: <nil>" {
		t.Fatalf("the server's ping: %s", got)
	}
	if err := c.Close(wsconn.StatusNormalClosure, "done"); err != nil {
		t.Fatal(err)
	}
	if code := <-closed; code != websocket.StatusNormalClosure {
		t.Fatalf("the server saw the client close with %v", code)
	}
}
