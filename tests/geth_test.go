package tests

// geth_test.go checks interoperability with a client this project did not
// write: go-ethereum's rpc client, over WebSocket and over HTTPS.

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"
)

// insecureTLS trusts Caddy's internal CA.
var insecureTLS = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // Caddy's internal CA

// gethClient dials url (wss:// or https://) with go-ethereum's client.
func gethClient(t *testing.T, url string) *gethrpc.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	c, err := gethrpc.DialOptions(ctx, url,
		gethrpc.WithWebsocketDialer(websocket.Dialer{TLSClientConfig: insecureTLS, HandshakeTimeout: requestTimeout}),
		gethrpc.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: insecureTLS}, Timeout: requestTimeout}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// checkCallsAndBatch makes calls and a batch through c.
func checkCallsAndBatch(t *testing.T, c *gethrpc.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	var diff float64
	if err := c.CallContext(ctx, &diff, "subtract", 42, 23); err != nil || diff != 19 {
		t.Fatalf("subtract: %v, %v", diff, err)
	}
	var s string
	if err := c.CallContext(ctx, &s, "StringMe", "héllo \"world\""); err != nil || s != "héllo \"world\"" {
		t.Fatalf("StringMe: %q, %v", s, err)
	}
	err := c.CallContext(ctx, nil, "no_such_method")
	var rpcErr gethrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32601 {
		t.Fatalf("missing method: %v", err)
	}
	var sum float64
	var data []any
	var bad float64
	batch := []gethrpc.BatchElem{
		{Method: "sum", Args: []any{1, 2, 4}, Result: &sum},
		{Method: "get_data", Result: &data},
		{Method: "subtract", Args: []any{"x", 1}, Result: &bad},
	}
	if err := c.BatchCallContext(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if batch[0].Error != nil || sum != 7 {
		t.Fatalf("sum in a batch: %v, %v", sum, batch[0].Error)
	}
	if batch[1].Error != nil || len(data) != 2 || data[0] != "hello" || data[1] != 5.0 {
		t.Fatalf("get_data in a batch: %v, %v", data, batch[1].Error)
	}
	if !errors.As(batch[2].Error, &rpcErr) || rpcErr.ErrorCode() != -32602 {
		t.Fatalf("bad params in a batch: %v", batch[2].Error)
	}
}

// subscribeTicks subscribes c to the demo's ticks and checks the first
// three.
func subscribeTicks(ctx context.Context, t *testing.T, c *gethrpc.Client) (chan int, *gethrpc.ClientSubscription) {
	t.Helper()
	ticks := make(chan int, 16)
	sub, err := c.Subscribe(ctx, "demo", ticks, "ticks", 10)
	if err != nil {
		t.Fatal(err)
	}
	for want := 1; want <= 3; want++ {
		select {
		case got := <-ticks:
			if got != want {
				t.Fatalf("tick %d, want %d", got, want)
			}
		case err := <-sub.Err():
			t.Fatalf("subscription failed: %v", err)
		case <-ctx.Done():
			t.Fatal("no tick")
		}
	}
	return ticks, sub
}

func TestGethClientOverWebSocket(t *testing.T) {
	base, _ := startWebSocketSite(t)
	c := gethClient(t, base+"/rpc")
	checkCallsAndBatch(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	ticks, sub := subscribeTicks(ctx, t, c)
	sub.Unsubscribe()
	// Once unsubscribed, the server sends no more ticks: a call made now is
	// answered, and the ticks channel stays quiet.
	var x float64
	if err := c.CallContext(ctx, &x, "Test2", 1.5); err != nil || x != 1.5 {
		t.Fatalf("after unsubscribing: %v, %v", x, err)
	}
	for len(ticks) > 0 {
		<-ticks
	}
	select {
	case tick := <-ticks:
		t.Fatalf("tick %d after unsubscribing", tick)
	case <-time.After(100 * time.Millisecond):
	}

	// A chat subscription sees what another client publishes.
	messages := make(chan string, 4)
	chat, err := c.Subscribe(ctx, "demo", messages, "chat")
	if err != nil {
		t.Fatal(err)
	}
	defer chat.Unsubscribe()
	other := gethClient(t, base+"/rpc")
	var ok bool
	if err := other.CallContext(ctx, &ok, "demo_publish", "chat", "hi from geth"); err != nil || !ok {
		t.Fatalf("publish: %v, %v", ok, err)
	}
	select {
	case m := <-messages:
		if m != "hi from geth" {
			t.Fatalf("chat got %q", m)
		}
	case <-ctx.Done():
		t.Fatal("no chat message")
	}
}

func TestGethClientOverHTTPS(t *testing.T) {
	base, _ := startWebSocketSite(t)
	c := gethClient(t, strings.Replace(base, "wss://", "https://", 1)+"/rpc")
	checkCallsAndBatch(t, c)
	// Subscriptions need a connection to push on; over HTTP the client says
	// so itself, and a raw call gets our error.
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	if _, err := c.Subscribe(ctx, "demo", make(chan int), "ticks", 10); !errors.Is(err, gethrpc.ErrNotificationsUnsupported) {
		t.Fatalf("subscribe over HTTP: %v", err)
	}
	var id string
	err := c.CallContext(ctx, &id, "demo_subscribe", "ticks", 10)
	if err == nil || !strings.Contains(err.Error(), "subscriptions need a WebSocket connection") {
		t.Fatalf("demo_subscribe over HTTP: %v", err)
	}
}
