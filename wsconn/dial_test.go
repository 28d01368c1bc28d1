package wsconn_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// dialClient dials url with wsconn's client, closed at the end of the test
// and after 10 seconds at the latest, so that no read waits forever.
func dialClient(t testing.TB, url string, opts wsconn.DialOptions) *wsconn.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := wsconn.Dial(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(10*time.Second, func() { c.CloseNow() })
	t.Cleanup(func() {
		watchdog.Stop()
		c.CloseNow()
	})
	return c
}

// send writes msg and flushes it.
func send(t testing.TB, c *wsconn.Conn, msg string) {
	t.Helper()
	if err := c.WriteMessage(context.Background(), []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// receive reads the next message.
func receive(t testing.TB, c *wsconn.Conn) string {
	t.Helper()
	msg, err := c.ReadMessage(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}

// expectPeerClose reads until the connection ends, which must be the
// peer's close frame with want.
func expectPeerClose(t testing.TB, c *wsconn.Conn, want wsconn.StatusCode) {
	t.Helper()
	for {
		_, err := c.ReadMessage(context.Background(), nil)
		if err == nil {
			continue
		}
		var closed *wsconn.CloseError
		if !errors.As(err, &closed) || closed.Code != want {
			t.Fatalf("reading ended with %v, want the peer's close %d", err, want)
		}
		return
	}
}

func TestClientPipelinesCalls(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialClient(t, url, wsconn.DialOptions{})
	const n = 2000
	written := make(chan error, 1)
	go func() {
		ctx := context.Background()
		for i := range n {
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"addInt","params":[%d,1],"id":%d}`, i, i)
			if err := c.WriteMessage(ctx, []byte(msg)); err != nil {
				written <- err
				return
			}
			if i%16 == 15 || i == n-1 { // a few messages per flush
				if err := c.Flush(ctx); err != nil {
					written <- err
					return
				}
			}
		}
		written <- nil
	}()
	seen := map[int]bool{}
	var buf []byte
	for range n {
		var err error
		if buf, err = c.ReadMessage(context.Background(), buf[:0]); err != nil {
			t.Fatal(err)
		}
		var a struct{ Result, ID int }
		if err := json.Unmarshal(buf, &a); err != nil || a.Result != a.ID+1 || seen[a.ID] {
			t.Fatalf("answer %s (%v)", buf, err)
		}
		seen[a.ID] = true
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
}

func TestClientMessageOverTheServersLimitIsClosedWith1009(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{MaxMessage: 100}, rpccore.PeerConfig{})
	c := dialClient(t, url, wsconn.DialOptions{})
	send(t, c, `{"jsonrpc":"2.0","method":"StringMe","params":["`+strings.Repeat("x", 200)+`"],"id":1}`)
	expectPeerClose(t, c, wsconn.StatusMessageTooBig)
}

func TestServerMessageOverTheClientsLimitIsClosedWith1009(t *testing.T) {
	url, _, served := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialClient(t, url, wsconn.DialOptions{MaxMessage: 100})
	send(t, c, `{"jsonrpc":"2.0","method":"StringMe","params":["`+strings.Repeat("x", 200)+`"],"id":1}`)
	_, err := c.ReadMessage(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "1009") {
		t.Fatalf("a message over the client's limit was read with %v", err)
	}
	_ = c.Close(wsconn.StatusNormalClosure, "") // the close frame sent already stands
	var closed *wsconn.CloseError
	if err := <-served; !errors.As(err, &closed) || closed.Code != wsconn.StatusMessageTooBig {
		t.Fatalf("the server's connection ended with %v, want the client's close 1009", err)
	}
}

func TestClientBeginsTheClosingHandshake(t *testing.T) {
	url, _, served := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialClient(t, url, wsconn.DialOptions{})
	send(t, c, addCall)
	if got := receive(t, c); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Fatalf("answered %s", got)
	}
	start := time.Now()
	if err := c.Close(wsconn.StatusNormalClosure, "done"); err != nil {
		t.Fatal(err)
	}
	// The server answers and closes the TCP connection at once; the
	// client waited for both, not for a timeout.
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the closing handshake took %v", d)
	}
	if err := <-served; err != nil {
		t.Fatalf("the server ended the client's normal close with %v", err)
	}
}

func TestServerBeginsTheClosingHandshake(t *testing.T) {
	url, shutdown, served := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialClient(t, url, wsconn.DialOptions{})
	send(t, c, addCall)
	receive(t, c)
	shutdown()
	expectPeerClose(t, c, wsconn.StatusGoingAway)
	start := time.Now()
	if err := c.Close(wsconn.StatusNormalClosure, ""); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("closing after the server's close frame took %v", d)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("the server's shutdown ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the client's answer to its close frame")
	}
}

func TestClientPingIsAnswered(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dialClient(t, url, wsconn.DialOptions{})
	read := make(chan error, 1)
	go func() {
		_, err := c.ReadMessage(context.Background(), nil) // reads the pong
		read <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	c.InterruptRead()
	if err := <-read; err == nil {
		t.Fatal("InterruptRead did not end the client's read")
	}
}

func TestClientKeepAlive(t *testing.T) {
	t.Run("answering server", func(t *testing.T) {
		url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
		c := dialClient(t, url, wsconn.DialOptions{})
		stop := c.StartKeepAlive(20 * time.Millisecond)
		defer stop()
		read := make(chan error, 1)
		go func() {
			_, err := c.ReadMessage(context.Background(), nil)
			read <- err
		}()
		select {
		case err := <-read:
			t.Fatalf("the connection to a server that answers pings ended: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	})
	t.Run("silent server", func(t *testing.T) {
		url := rawServer(t, func(conn net.Conn) {
			_, _ = io.Copy(io.Discard, conn) // reads the pings, answers none
		})
		c := dialClient(t, url, wsconn.DialOptions{})
		defer c.StartKeepAlive(20 * time.Millisecond)()
		start := time.Now()
		if _, err := c.ReadMessage(context.Background(), nil); err == nil {
			t.Fatal("read a message from a silent server")
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("a server that answers no pings was dropped after %v", d)
		}
	})
}

func TestDialRefusedNamesTheStatus(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", status)
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := wsconn.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/rpc", wsconn.DialOptions{})
		cancel()
		ts.Close()
		var refused *wsconn.HandshakeError
		if !errors.As(err, &refused) || refused.StatusCode != status {
			t.Fatalf("a %d answer gave %v", status, err)
		}
		if want := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)); !strings.Contains(err.Error(), want) {
			t.Fatalf("the error %q does not say %q", err, want)
		}
	}
}

func TestDialOverTLS(t *testing.T) {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wsconn.Serve(ctx, w, r, s, wsconn.Options{}, rpccore.PeerConfig{})
	}))
	defer ts.Close()
	defer cancel() // before ts.Close, which waits for the handlers
	url := "wss" + strings.TrimPrefix(ts.URL, "https")
	tlsConfig := ts.Client().Transport.(*http.Transport).TLSClientConfig
	c := dialClient(t, url, wsconn.DialOptions{TLSConfig: tlsConfig})
	send(t, c, addCall)
	if got := receive(t, c); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Fatalf("answered %s", got)
	}
	if err := c.Close(wsconn.StatusNormalClosure, ""); err != nil {
		t.Fatal(err)
	}
	// Without the test server's certificate, the handshake fails.
	dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer dcancel()
	if _, err := wsconn.Dial(dctx, url, wsconn.DialOptions{TLSConfig: &tls.Config{}}); err == nil {
		t.Fatal("dialed a server whose certificate is not trusted")
	}
}

func TestDialSendsTheHeaders(t *testing.T) {
	got := make(chan *http.Request, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r
		http.Error(w, "seen", http.StatusUnauthorized)
	}))
	defer ts.Close()
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/rpc?x=1"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := wsconn.Dial(ctx, url, wsconn.DialOptions{Header: http.Header{
		"Authorization":          {"Bearer token"},
		"origin":                 {"https://app.example"}, // not in canonical form
		"Host":                   {"rpc.example"},
		"Sec-WebSocket-Protocol": {"jsonrpc, other"},
	}})
	var refused *wsconn.HandshakeError
	if !errors.As(err, &refused) || refused.StatusCode != http.StatusUnauthorized {
		t.Fatalf("dial: %v", err)
	}
	r := <-got
	for name, want := range map[string]string{
		"Authorization":          "Bearer token",
		"Origin":                 "https://app.example",
		"Sec-Websocket-Protocol": "jsonrpc, other",
	} {
		if v := strings.Join(r.Header.Values(name), ", "); v != want {
			t.Errorf("%s: %q, want %q", name, v, want)
		}
	}
	if r.Host != "rpc.example" || r.URL.RequestURI() != "/rpc?x=1" {
		t.Errorf("request for %s %s", r.Host, r.URL.RequestURI())
	}
	_, err = wsconn.Dial(ctx, url, wsconn.DialOptions{Header: http.Header{"Sec-WebSocket-Key": {"mine"}}})
	if err == nil || !strings.Contains(err.Error(), "Sec-Websocket-Key") {
		t.Fatalf("a header of the handshake's own was taken: %v", err)
	}
}
