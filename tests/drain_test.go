package tests

// drain_test.go closes connections that have calls in flight, by a reload
// and by a stop of bin/caddy, and checks that every call the client sent is
// answered before the close (a result, or -32001 "Server going away"): over
// WebSocket and over a stream, with calls of the demo's and calls forwarded
// to a slow upstream.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/draintest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// drainCaddyfile serves the demo and an upstream's slow_* methods over
// WebSocket and over a stream listener, each with a shutdown grace of
// 300ms and 8 blocking documents at once per connection.
const drainCaddyfile = `{
	admin localhost:ADMIN
	skip_install_trust
	jsonrpc {
		shutdown_grace 300ms
		listen tcp/127.0.0.1:TCP {
			service demo
			service upstream {
				to UPSTREAM
				methods slow_*
			}
			max_in_flight 8
		}
	}
}
http://127.0.0.1:PORT {
	jsonrpc /rpc {
		service demo
		service upstream {
			to UPSTREAM
			methods slow_*
		}
		websocket {
			shutdown_grace 300ms
			max_in_flight 8
		}
	}
}
`

// slowUpstream is a JSON-RPC server answering slow_echo(x) with x after
// a second (longer than the grace, so that the calls running at a close
// are cancelled), or giving up when the request is cancelled, and any other call
// (the health check's) with null at once.
func slowUpstream(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
			ID     json.RawMessage   `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "want one call", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if req.Method != "slow_echo" || len(req.Params) != 1 {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","result":null,"id":%s}`, req.ID)
			return
		}
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":%s,"id":%s}`, req.Params[0], req.ID)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// drainSite is bin/caddy serving drainCaddyfile.
type drainSite struct {
	*exampleServer
	ws, tcp string
}

func startDrainSite(t *testing.T) *drainSite {
	t.Helper()
	tcp := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	base, s := plainCaddy(t, drainCaddyfile, map[string]string{"TCP": portOf("http://" + tcp), "UPSTREAM": slowUpstream(t)})
	return &drainSite{exampleServer: s, ws: "ws" + strings.TrimPrefix(base, "http") + "/rpc", tcp: tcp}
}

// drainLoads are the calls each test sends: half of them blocking, on the
// demo's delay or the upstream's slow_echo.
var drainLoads = []struct {
	name     string
	blocking func(id int) draintest.Call
	forwards bool
}{
	{"demo delay", func(id int) draintest.Call {
		return draintest.Call{Doc: fmt.Sprintf(`{"jsonrpc":"2.0","method":"delay","params":[60],"id":%d}`, id), Result: "60"}
	}, false},
	{"slow upstream", func(id int) draintest.Call {
		return draintest.Call{Doc: fmt.Sprintf(`{"jsonrpc":"2.0","method":"slow_echo","params":[%d],"id":%d}`, id, id), Result: strconv.Itoa(id)}
	}, true},
}

// pipelined is a client with 1,000 calls in flight.
type pipelined interface {
	// send sends every call; it returns once they are all written.
	send(calls []draintest.Call) error
	// answers reads answers until the server closes the connection,
	// calling first after the first one.
	answers(first func()) ([][]byte, error)
}

// wsPipelined is a WebSocket client.
type wsPipelined struct{ c *wsconn.Conn }

func (p wsPipelined) send(calls []draintest.Call) error {
	for _, call := range calls {
		if err := p.c.WriteMessage(context.Background(), []byte(call.Doc)); err != nil {
			return err
		}
	}
	return p.c.Flush(context.Background())
}

func (p wsPipelined) answers(first func()) ([][]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var answers [][]byte
	for {
		msg, err := p.c.ReadMessage(ctx, nil)
		if err != nil {
			var closed *wsconn.CloseError
			if errors.As(err, &closed) && closed.Code == wsconn.StatusGoingAway {
				return answers, nil
			}
			return answers, fmt.Errorf("after %d answers: %v, want the close 1001", len(answers), err)
		}
		if answers = append(answers, msg); len(answers) == 1 {
			first()
		}
	}
}

// streamPipelined is a stream client.
type streamPipelined struct{ c net.Conn }

func (p streamPipelined) send(calls []draintest.Call) error {
	_, err := io.WriteString(p.c, draintest.Join(calls))
	return err
}

func (p streamPipelined) answers(first func()) ([][]byte, error) {
	p.c.SetReadDeadline(time.Now().Add(15 * time.Second))
	r := bufio.NewReader(p.c)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("the first answer: %v", err)
	}
	first()
	rest, err := io.ReadAll(r) // to the close, which must be clean (no reset)
	if err != nil {
		return nil, fmt.Errorf("reading to the close: %v", err)
	}
	answers := [][]byte{bytes.TrimSuffix(line, []byte("\n"))}
	if rest = bytes.TrimSuffix(rest, []byte("\n")); len(rest) > 0 {
		answers = append(answers, bytes.Split(rest, []byte("\n"))...)
	}
	return answers, nil
}

// dialPipelined dials the site's WebSocket or stream endpoint.
func (s *drainSite) dialPipelined(t *testing.T, transport string) pipelined {
	t.Helper()
	if transport == "websocket" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := wsconn.Dial(ctx, s.ws, wsconn.DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		return wsPipelined{c}
	}
	c, err := net.Dial("tcp", s.tcp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return streamPipelined{c}
}

// closeInFlight sends 1,000 calls on a connection of s's and, once they are
// all sent and the first is answered, closes it with end (a reload or a
// stop); it checks that every call was answered before the close.
func closeInFlight(t *testing.T, s *drainSite, transport string, blocking func(id int) draintest.Call, end func()) draintest.Counts {
	t.Helper()
	c := s.dialPipelined(t, transport)
	calls := draintest.Calls(1000, blocking)
	sent := make(chan error, 1)
	go func() { sent <- c.send(calls) }()
	ended := make(chan struct{})
	answers, err := c.answers(func() {
		if err := <-sent; err != nil {
			t.Errorf("sending: %v", err)
		}
		go func() { // the reload returns once the connection has closed
			defer close(ended)
			end()
		}()
	})
	if err != nil {
		t.Fatal(err)
	}
	<-ended
	n := draintest.Check(t, answers, calls, nil)
	t.Logf("%s: %+v", transport, n)
	if n.NotRun == 0 || n.Results == 0 {
		t.Errorf("want some calls run and some not: the close did not come with calls in flight")
	}
	return n
}

// connectionGoroutines returns the number of goroutines in bin/caddy that
// serve connections (those running code of rpccore, wsconn or streamconn),
// from its admin endpoint's goroutine profile.
func connectionGoroutines(t *testing.T, admin string) int {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Get(admin + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	profile, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, stack := range strings.Split(string(profile), "\n\n") {
		count, _, ok := strings.Cut(stack, " @ ")
		if !ok || !connectionCode.MatchString(stack) {
			continue
		}
		k, _ := strconv.Atoi(count)
		n += k
	}
	return n
}

// connectionCode matches a frame of the packages that serve connections.
var connectionCode = regexp.MustCompile(`caddy-jsonrpc(@[^/]*)?/(rpccore|wsconn|streamconn)\.`)

// waitNoConnectionGoroutines waits up to 5 seconds for bin/caddy to have no
// goroutine serving a connection.
func waitNoConnectionGoroutines(t *testing.T, admin string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for n := connectionGoroutines(t, admin); n > 0; n = connectionGoroutines(t, admin) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines still serve connections after the reload", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestReloadAnswersEveryCallInFlight(t *testing.T) {
	t.Parallel() // its own processes and ports
	s := startDrainSite(t)
	for _, load := range drainLoads {
		for _, transport := range []string{"websocket", "stream"} {
			t.Run(load.name+" over "+transport, func(t *testing.T) {
				n := closeInFlight(t, s, transport, load.blocking, func() {
					if serving := connectionGoroutines(t, s.admin); serving == 0 {
						t.Error("no goroutine serves the connection: the count cannot tell one left")
					}
					reload(t, s.admin, s.caddyfile)
				})
				if load.forwards && n.Cancelled == 0 {
					t.Error("no forwarded call was answered cancelled: none outlasted the grace")
				}
				waitNoConnectionGoroutines(t, s.admin)
			})
		}
	}
}

func TestStopAnswersEveryCallInFlight(t *testing.T) {
	t.Parallel() // its own processes and ports
	for _, load := range drainLoads {
		for _, transport := range []string{"websocket", "stream"} {
			t.Run(load.name+" over "+transport, func(t *testing.T) {
				s := startDrainSite(t)
				closeInFlight(t, s, transport, load.blocking, func() { s.stop(t) })
			})
		}
	}
}
