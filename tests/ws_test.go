package tests

// ws_test.go drives JSON-RPC over WebSocket (wss://, Caddy's internal CA)
// against a real Caddy in this process: pipelining, errors, limits, pings
// across idle timeouts, slow consumers and reloads.

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsCaddyfile is the configuration of the WebSocket tests. Its servers
// time out idle and slow reads after a second, so that connections only
// stay open through their pings.
const wsCaddyfile = `{
	admin localhost:{{admin}}
	default_bind 127.0.0.1
	skip_install_trust
	auto_https disable_redirects
	http_port {{http}}
	https_port {{https}}
	grace_period 3s
	servers {
		timeouts {
			read_body 1s
			read_header 1s
			idle 1s
		}
	}
}

https://localhost:{{https}} {
	tls internal
	jsonrpc /rpc {
		service demo
		websocket {
			ping_interval 250ms
		}
	}
	jsonrpc /steady {
		service demo
		websocket {
			ping_interval 10s
		}
	}
	jsonrpc /small {
		service demo
		websocket {
			max_message 1KiB
			max_connections 2
			origins good.example
		}
	}
	jsonrpc /drop {
		service demo
		websocket {
			send_queue 16
			slow_consumer drop_oldest
		}
	}
	jsonrpc /disconnect {
		service demo
		websocket {
			send_queue 16
			slow_consumer disconnect
		}
	}
	jsonrpc /nows {
		service demo
		websocket off
	}
}
`

// wsSite is the loaded WebSocket configuration.
type wsSite struct {
	https     int
	caddyfile string
}

var wsConfig struct {
	once sync.Once
	site wsSite
}

// startWebSocketSite loads wsCaddyfile into the in-process Caddy and
// returns the site's wss:// base URL.
func startWebSocketSite(t *testing.T) (string, wsSite) {
	t.Helper()
	wsConfig.once.Do(func() {
		wsConfig.site.https = freePort(t)
		wsConfig.site.caddyfile = strings.NewReplacer(
			"{{admin}}", fmt.Sprint(adminPort),
			"{{http}}", fmt.Sprint(freePort(t)),
			"{{https}}", fmt.Sprint(wsConfig.site.https),
		).Replace(wsCaddyfile)
	})
	tester(t).InitServer(wsConfig.site.caddyfile, "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	return fmt.Sprintf("wss://localhost:%d", wsConfig.site.https), wsConfig.site
}

// wsDial opens a WebSocket connection, trusting Caddy's internal CA.
func wsDial(t *testing.T, url string, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // Caddy's internal CA
		}},
		HTTPHeader: header,
	})
	if err == nil {
		c.SetReadLimit(1 << 24)
		t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func mustDial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	c, _, err := wsDial(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wsSend(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

// wsRecv reads the next message as a JSON object.
func wsRecv(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
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

// closeStatus reads until the connection ends and returns its close status
// (-1 when it ended without a close frame, or did not end in time).
func closeStatus(t *testing.T, c *websocket.Conn) websocket.StatusCode {
	t.Helper()
	status, _ := readUntilClosed(c)
	return status
}

// readUntilClosed reads until the connection ends, and returns its close
// status and the error that ended it (a context error when it did not end
// within requestTimeout).
func readUntilClosed(c *websocket.Conn) (websocket.StatusCode, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if ctx.Err() != nil {
				return -1, ctx.Err()
			}
			return websocket.CloseStatus(err), err
		}
	}
}

func TestWebSocketCallsOverTLS(t *testing.T) {
	base, _ := startWebSocketSite(t)
	c := mustDial(t, base+"/rpc")
	wsSend(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	if a := wsRecv(t, c); a["result"] != 19.0 || a["id"] != 1.0 {
		t.Fatalf("got %v", a)
	}
	wsSend(t, c, `[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"a"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`)
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	_, msg, err := c.Read(ctx)
	if err != nil || string(msg) != `[{"jsonrpc":"2.0","result":3,"id":"a"}]` {
		t.Fatalf("batch answered %s (%v)", msg, err)
	}
}

func TestWebSocketPipelinesAThousandCalls(t *testing.T) {
	base, _ := startWebSocketSite(t)
	c := mustDial(t, base+"/rpc")
	const n = 1000
	errs := make(chan error, 1)
	go func() {
		for i := range n {
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"addInt","params":[%d,%d],"id":%d}`, i, i, i)
			if err := c.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	seen := make(map[int]bool, n)
	for range n {
		a := wsRecv(t, c)
		id := int(a["id"].(float64))
		if a["result"] != float64(2*id) || seen[id] {
			t.Fatalf("answer %v", a)
		}
		seen[id] = true
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

func TestWebSocketBadInputKeepsTheConnection(t *testing.T) {
	base, _ := startWebSocketSite(t)
	c := mustDial(t, base+"/rpc")
	for _, tt := range []struct {
		msg  string
		code float64
	}{
		{`{"jsonrpc":"2.0","method":`, -32700},
		{`not json at all`, -32700},
		{`[]`, -32600},
		{`{"jsonrpc":"2.0","method":"nope","id":1}`, -32601},
		{`{"jsonrpc":"2.0","method":"subtract","params":["a"],"id":2}`, -32602},
	} {
		wsSend(t, c, tt.msg)
		a := wsRecv(t, c)
		if e, _ := a["error"].(map[string]any); e == nil || e["code"] != tt.code {
			t.Fatalf("%s: got %v, want code %v", tt.msg, a, tt.code)
		}
	}
	wsSend(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":3}`)
	if a := wsRecv(t, c); a["result"] != 19.0 {
		t.Fatalf("the connection did not survive bad input: %v", a)
	}
}

func TestWebSocketLimits(t *testing.T) {
	base, _ := startWebSocketSite(t)

	t.Run("message too big closes with 1009", func(t *testing.T) {
		c := mustDial(t, base+"/small")
		wsSend(t, c, `{"jsonrpc":"2.0","method":"StringMe","params":["`+strings.Repeat("x", 2000)+`"],"id":1}`)
		if got := closeStatus(t, c); got != websocket.StatusMessageTooBig {
			t.Fatalf("closed with %v, want 1009", got)
		}
	})

	t.Run("past max_connections is 503", func(t *testing.T) {
		// The connection of the previous subtest may still be closing on
		// the server: wait for room for two.
		dialSoon := func() *websocket.Conn {
			deadline := time.Now().Add(requestTimeout)
			for {
				c, _, err := wsDial(t, base+"/small", nil)
				if err == nil {
					return c
				}
				if time.Now().After(deadline) {
					t.Fatal(err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		first, second := dialSoon(), dialSoon()
		_, resp, err := wsDial(t, base+"/small", nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("third connection: %v, %v", resp, err)
		}
		for _, c := range []*websocket.Conn{first, second} {
			wsSend(t, c, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
			if a := wsRecv(t, c); a["result"] != 3.0 {
				t.Fatalf("got %v", a)
			}
			c.Close(websocket.StatusNormalClosure, "")
		}
	})

	t.Run("origins", func(t *testing.T) {
		for origin, ok := range map[string]bool{"https://good.example": true, "https://evil.example": false} {
			c, resp, err := wsDial(t, base+"/small", http.Header{"Origin": {origin}})
			if ok != (err == nil) {
				t.Fatalf("origin %s: %v", origin, err)
			}
			if !ok && (resp == nil || resp.StatusCode != http.StatusForbidden) {
				t.Fatalf("origin %s refused with %v, want 403", origin, resp)
			}
			if c != nil {
				c.Close(websocket.StatusNormalClosure, "")
			}
		}
	})

	t.Run("websocket off is 405", func(t *testing.T) {
		_, resp, err := wsDial(t, base+"/nows", nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("upgrade with websocket off: %v, %v", resp, err)
		}
	})
}

func TestWebSocketPingsOutlastIdleTimeouts(t *testing.T) {
	base, _ := startWebSocketSite(t)
	c := mustDial(t, base+"/rpc")
	// Reading answers the server's pings, as every client library does.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	messages := make(chan []byte, 4)
	go func() {
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				close(messages)
				return
			}
			messages <- msg
		}
	}()
	time.Sleep(2500 * time.Millisecond) // past the server's 1s idle and read timeouts
	wsSend(t, c, `{"jsonrpc":"2.0","method":"add","params":[2,2],"id":1}`)
	select {
	case msg, ok := <-messages:
		if !ok || string(msg) != `{"jsonrpc":"2.0","result":4,"id":1}` {
			t.Fatalf("after the idle period: %q (open %t)", msg, ok)
		}
	case <-time.After(requestTimeout):
		t.Fatal("no answer after the idle period")
	}
}

// subscribeChat subscribes c to the demo chat and returns the id.
func subscribeChat(t *testing.T, c *websocket.Conn) string {
	t.Helper()
	wsSend(t, c, `{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":"sub"}`)
	a := wsRecv(t, c)
	id, ok := a["result"].(string)
	if !ok {
		t.Fatalf("subscribe answered %v", a)
	}
	return id
}

func TestWebSocketSlowConsumers(t *testing.T) {
	base, _ := startWebSocketSite(t)
	for _, path := range []string{"/drop", "/disconnect"} {
		t.Run(path, func(t *testing.T) {
			stuck := mustDial(t, base+path)
			subscribeChat(t, stuck) // and never read again
			// The fast client's route pings rarely: a stall of the loaded
			// machine while it reads must not end it through the keep-alive.
			fast := mustDial(t, base+"/steady")
			subscribeChat(t, fast)

			const n = 400
			message := strings.Repeat("m", 32<<10) // 400 x 32 KiB: more than socket buffers hold
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				for i := range n {
					doc := fmt.Sprintf(`{"jsonrpc":"2.0","method":"demo_publish","params":["chat","%d %s"]}`, i, message)
					if err := fast.Write(context.Background(), websocket.MessageText, []byte(doc)); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			for got := 0; got < n; {
				m := wsRecv(t, fast)
				if m["method"] == "demo_subscription" {
					got++
				}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Fatalf("the fast client took %v: the stuck one held it up", d)
			}
			if path == "/disconnect" {
				// The server closes with 1008; when the stuck client's buffers
				// are full the close frame cannot get through either, and the
				// connection just ends.
				status, err := readUntilClosed(stuck)
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatal("the stuck client was not disconnected")
				}
				if status != websocket.StatusPolicyViolation && status != -1 {
					t.Fatalf("stuck client closed with %v, want 1008", status)
				}
			}
		})
	}
}

func TestWebSocketReloadClosesWithGoingAway(t *testing.T) {
	base, site := startWebSocketSite(t)
	c := mustDial(t, base+"/rpc")
	wsSend(t, c, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	wsRecv(t, c)
	// The client keeps reading, as clients do, so it answers the closing
	// handshake at once.
	status := make(chan websocket.StatusCode, 1)
	go func() { status <- closeStatus(t, c) }()
	start := time.Now()
	reload(t, fmt.Sprintf("http://localhost:%d", adminPort), site.caddyfile)
	if got := <-status; got != websocket.StatusGoingAway {
		t.Fatalf("closed with %v on reload, want 1001", got)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the reload took %v: closing the connection held it up", d)
	}
	// The new configuration serves new connections.
	c2 := mustDial(t, base+"/rpc")
	wsSend(t, c2, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	if a := wsRecv(t, c2); a["result"] != 3.0 {
		t.Fatalf("after the reload: %v", a)
	}
}

// metricValue returns the value of the metric line that starts with name
// (labels included) in a scrape, or -1.
func metricValue(scraped, name string) float64 {
	for line := range strings.Lines(scraped) {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err == nil {
				return v
			}
		}
	}
	return -1
}

func TestWebSocketMetrics(t *testing.T) {
	base, _ := startWebSocketSite(t)
	admin := fmt.Sprintf("http://localhost:%d", adminPort)
	before := scrape(t, admin)
	c := mustDial(t, base+"/rpc")
	subscribeChat(t, c)
	subscribeChat(t, c)
	wsSend(t, c, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	wsRecv(t, c)
	// The server counts a message out once it is written, which may be just
	// after the client has it: wait for the counts to settle.
	rises := map[string]float64{
		"caddy_jsonrpc_websocket_connections":                     1,
		"caddy_jsonrpc_subscriptions":                             2,
		`caddy_jsonrpc_websocket_messages_total{direction="in"}`:  3,
		`caddy_jsonrpc_websocket_messages_total{direction="out"}`: 3,
	}
	var during string
	for deadline := time.Now().Add(requestTimeout); ; {
		during = scrape(t, admin)
		wrong := ""
		for name, rise := range rises {
			if got := metricValue(during, name) - max(metricValue(before, name), 0); got != rise {
				wrong += fmt.Sprintf("%s rose by %v, want %v; ", name, got, rise)
			}
		}
		if wrong == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(wrong)
		}
		time.Sleep(20 * time.Millisecond)
	}
	wantMetrics(t, during, "caddy_jsonrpc_notifications_dropped_total")
	c.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(requestTimeout)
	for {
		after := scrape(t, admin)
		if metricValue(after, "caddy_jsonrpc_subscriptions") == max(metricValue(before, "caddy_jsonrpc_subscriptions"), 0) &&
			metricValue(after, "caddy_jsonrpc_websocket_connections") == max(metricValue(before, "caddy_jsonrpc_websocket_connections"), 0) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("connections and subscriptions not back down after the close:\n%s", after)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
