package httphandler

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// wsServer serves h on a loopback test server, writing handler errors as
// Caddy would, and returns its ws:// URL.
func wsServer(t *testing.T, h *Handler) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.ServeHTTP(w, r, nil); err != nil {
			var he caddyhttp.HandlerError
			if errors.As(err, &he) {
				w.WriteHeader(he.StatusCode)
				return
			}
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http") + "/rpc"
}

func dialWS(t *testing.T, url string, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
	if c != nil {
		t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func roundTrip(t *testing.T, c *websocket.Conn, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, got, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

func TestWebSocketUpgrade(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	c, _, err := dialWS(t, wsServer(t, h), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := roundTrip(t, c, `{"jsonrpc":"2.0","method":"echo","params":["hi"],"id":1}`),
		`{"jsonrpc":"2.0","result":"hi","id":1}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","method":"whoami","id":2}`); !strings.Contains(got, "websocket") {
		t.Fatalf("the call did not see the websocket transport: %s", got)
	}
}

func TestWebSocketOff(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), WebSocket: &WebSocketConfig{Disabled: true}})
	_, resp, err := dialWS(t, wsServer(t, h), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("upgrade with websocket off: %v, %v", resp, err)
	}
}

func TestWebSocketMaxConnections(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), WebSocket: &WebSocketConfig{MaxConnections: 1}})
	url := wsServer(t, h)
	before := testutil.ToFloat64(peerCollectors.connections)
	first, _, err := dialWS(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, first, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	if got := testutil.ToFloat64(peerCollectors.connections) - before; got != 1 {
		t.Errorf("connections gauge rose by %v, want 1", got)
	}
	_, resp, err := dialWS(t, url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second connection past max_connections 1: %v, %v", resp, err)
	}
	first.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, _, err := dialWS(t, url, nil)
		if err == nil {
			roundTrip(t, c, `{"jsonrpc":"2.0","method":"echo","params":["b"],"id":1}`)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after the first connection closed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWebSocketOrigins(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"),
		WebSocket: &WebSocketConfig{Origins: []string{"app.example.com"}}})
	url := wsServer(t, h)
	for origin, ok := range map[string]bool{"": true, "https://app.example.com": true, "https://evil.example.com": false} {
		header := http.Header{}
		if origin != "" {
			header.Set("Origin", origin)
		}
		_, resp, err := dialWS(t, url, header)
		if ok != (err == nil) {
			t.Errorf("origin %q: %v", origin, err)
		}
		if !ok && (resp == nil || resp.StatusCode != http.StatusForbidden) {
			t.Errorf("origin %q refused with %v, want 403", origin, resp)
		}
	}
}

func TestWebSocketClosesWithGoingAwayOnUnload(t *testing.T) {
	h := &Handler{ServicesRaw: services("handler_test")}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	c, _, err := dialWS(t, wsServer(t, h), nil)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, c, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	unloaded := make(chan struct{})
	go func() {
		cancel() // as a reload unloads the old configuration: Cleanup runs too
		close(unloaded)
	}()
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	_, _, err = c.Read(rctx)
	if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
		t.Fatalf("closed with %v (%v), want 1001", got, err)
	}
	select {
	case <-unloaded:
	case <-time.After(10 * time.Second):
		t.Fatal("Cleanup did not return")
	}
}

func TestWebSocketConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  WebSocketConfig
		want string
	}{
		{WebSocketConfig{MaxMessage: -1}, "websocket max_message: must not be negative"},
		{WebSocketConfig{PingInterval: -1}, "websocket ping_interval: must not be negative"},
		{WebSocketConfig{MaxConnections: -1}, "websocket max_connections: must not be negative"},
		{WebSocketConfig{SendQueue: -5}, "websocket send_queue: must not be negative"},
		{WebSocketConfig{SlowConsumer: "wait"}, `websocket slow_consumer: "wait" is not drop_oldest or disconnect`},
		{WebSocketConfig{Origins: []string{" "}}, "websocket origins: empty pattern"},
	}
	for _, tt := range tests {
		cfg := tt.cfg
		err := provision(t, &Handler{ServicesRaw: services("handler_test"), WebSocket: &cfg})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want %q", tt.cfg, err, tt.want)
		}
	}
}
