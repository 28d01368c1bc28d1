package wsconn_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// server serves the demo over WebSocket on a loopback test server; the
// returned function shuts the peers down, as a configuration unload does.
func server(t testing.TB, opts wsconn.Options, cfg rpccore.PeerConfig) (url string, shutdown func(), served <-chan error) {
	t.Helper()
	return serverWith(t, nil, opts, cfg)
}

// serverWith is server with methods besides the demo's.
func serverWith(t testing.TB, methods rpccore.Methods, opts wsconn.Options, cfg rpccore.PeerConfig) (url string, shutdown func(), served <-chan error) {
	t.Helper()
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterMethods(methods); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		errs <- wsconn.Serve(ctx, w, r, s, opts, cfg)
	}))
	t.Cleanup(func() {
		cancel()
		ts.Close()
		wg.Wait()
	})
	return "ws" + strings.TrimPrefix(ts.URL, "http"), cancel, errs
}

func dial(t testing.TB, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func read(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(msg, &v); err != nil {
		t.Fatalf("%q: %v", msg, err)
	}
	return v
}

func write(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	if err := c.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func TestPipelinedCalls(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dial(t, url)
	const n = 1000
	go func() {
		for i := range n {
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"addInt","params":[%d,1],"id":%d}`, i, i)
			if c.Write(context.Background(), websocket.MessageText, []byte(msg)) != nil {
				return
			}
		}
	}()
	seen := map[float64]bool{}
	for range n {
		a := read(t, c)
		id := a["id"].(float64)
		if a["result"].(float64) != id+1 || seen[id] {
			t.Fatalf("answer %v", a)
		}
		seen[id] = true
	}
}

func TestInvalidJSONKeepsTheConnection(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dial(t, url)
	write(t, c, `{"jsonrpc":`)
	if a := read(t, c); a["error"].(map[string]any)["code"].(float64) != -32700 {
		t.Fatalf("got %v", a)
	}
	write(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	if a := read(t, c); a["result"].(float64) != 19 {
		t.Fatalf("got %v", a)
	}
}

func TestMessageTooBig(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{MaxMessage: 100}, rpccore.PeerConfig{})
	c := dial(t, url)
	write(t, c, `{"jsonrpc":"2.0","method":"StringMe","params":["`+strings.Repeat("x", 200)+`"],"id":1}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := c.Read(ctx)
	if got := websocket.CloseStatus(err); got != websocket.StatusMessageTooBig {
		t.Fatalf("closed with %v (%v), want 1009", got, err)
	}
}

func TestShutdownClosesWithGoingAway(t *testing.T) {
	url, shutdown, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dial(t, url)
	write(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	read(t, c)
	shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := c.Read(ctx)
	if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
		t.Fatalf("closed with %v (%v), want 1001", got, err)
	}
}

func TestSilentClientIsDisconnectedByPings(t *testing.T) {
	url, _, served := server(t, wsconn.Options{PingInterval: 50 * time.Millisecond}, rpccore.PeerConfig{})
	// The client never reads, so it never answers pings.
	dial(t, url)
	select {
	case err := <-served:
		if err == nil {
			t.Fatal("the silent client's connection ended without an error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a client that answers no pings was not disconnected")
	}
}

func TestResponsiveClientStaysConnected(t *testing.T) {
	url, _, served := server(t, wsconn.Options{PingInterval: 20 * time.Millisecond}, rpccore.PeerConfig{})
	c := dial(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Read(ctx) // reading answers pings
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-served:
		t.Fatalf("connection ended while the client answered pings: %v", err)
	default:
	}
}

func TestCrossOriginRefused(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{OriginPatterns: []string{"good.example"}}, rpccore.PeerConfig{})
	for origin, ok := range map[string]bool{"http://evil.example": false, "https://good.example": true} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		cancel()
		if ok != (err == nil) {
			t.Fatalf("origin %s: err %v", origin, err)
		}
		if err == nil {
			c.CloseNow()
		} else if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("origin %s refused with %v", origin, resp)
		}
	}
}

// countingConn counts writes to the network.
type countingConn struct {
	net.Conn
	mu     sync.Mutex
	writes int
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func TestBurstsAreWrittenTogether(t *testing.T) {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	var counted *countingConn
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wsconn.Serve(context.Background(), w, r, s, wsconn.Options{}, rpccore.PeerConfig{})
	}))
	ln := ts.Listener
	ts.Listener = &countingListener{Listener: ln, conns: func(c *countingConn) { counted = c }}
	ts.Start()
	defer ts.Close()
	c := dial(t, "ws"+strings.TrimPrefix(ts.URL, "http"))
	const n = 200
	for i := range n {
		write(t, c, fmt.Sprintf(`{"jsonrpc":"2.0","method":"addInt","params":[%d,1],"id":%d}`, i, i))
	}
	for range n {
		read(t, c)
	}
	counted.mu.Lock()
	defer counted.mu.Unlock()
	if counted.writes >= n {
		t.Fatalf("%d network writes for %d answers", counted.writes, n)
	}
	t.Logf("%d network writes for %d answers", counted.writes, n)
}

type countingListener struct {
	net.Listener
	conns func(*countingConn)
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	cc := &countingConn{Conn: c}
	l.conns(cc)
	return cc, nil
}

// TestMessageSentWithTheHandshake sends a message in the same write as the
// upgrade request, before the server's 101: it must not be lost.
func TestMessageSentWithTheHandshake(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	host := strings.TrimPrefix(url, "ws://")
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	payload := []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	key := [4]byte{1, 2, 3, 4}
	frame := []byte{0x81, 0x80 | byte(len(payload)), key[0], key[1], key[2], key[3]}
	for i, b := range payload {
		frame = append(frame, b^key[i%4])
	}
	request := "GET / HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := conn.Write(append([]byte(request), frame...)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
	}
	header := make([]byte, 2)
	if _, err := io.ReadFull(r, header); err != nil {
		t.Fatal(err)
	}
	answer := make([]byte, header[1]&0x7f)
	if _, err := io.ReadFull(r, answer); err != nil {
		t.Fatal(err)
	}
	if got, want := string(answer), `{"jsonrpc":"2.0","result":3,"id":1}`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestAnswersOfEveryFrameLength(t *testing.T) {
	url, _, _ := server(t, wsconn.Options{}, rpccore.PeerConfig{})
	c := dial(t, url)
	// StringMe echoes its string: answers around the 7-, 16- and 64-bit
	// frame lengths.
	for _, n := range []int{1, 100, 126, 65000, 65536, 200000} {
		s := strings.Repeat("y", n)
		write(t, c, fmt.Sprintf(`{"jsonrpc":"2.0","method":"StringMe","params":[%q],"id":%d}`, s, n))
		if a := read(t, c); a["result"] != s || a["id"] != float64(n) {
			t.Fatalf("answer to a %d-byte string: %.80v", n, a)
		}
	}
}
