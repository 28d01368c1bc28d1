package upstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// server is an upstream JSON-RPC server for the tests: the demo methods,
// whoami (its name), big(n) (a string of n bytes), fail (an error with
// data) and note(x) (records x), over HTTP POST and WebSocket on one URL.
type server struct {
	*httptest.Server
	name  string
	posts atomic.Int64 // POSTs received
	calls atomic.Int64 // request objects received over POST

	mu    sync.Mutex
	notes []string
	// wsCtx ends the WebSocket connections when cancelled.
	wsCtx    context.Context
	wsCancel context.CancelFunc
	// intercept, when set, handles a POST before the server does and
	// reports whether it did.
	intercept func(w http.ResponseWriter, r *http.Request) bool
}

func startServer(t *testing.T, name string) *server {
	t.Helper()
	s := &server{name: name}
	s.wsCtx, s.wsCancel = context.WithCancel(context.Background())
	rpc := rpccore.NewServer()
	if err := demo.Register(rpc); err != nil {
		t.Fatal(err)
	}
	err := rpc.RegisterMethods(rpccore.Methods{
		"whoami": rpccore.Func0(func(context.Context) (string, error) { return name, nil }),
		"big": rpccore.Func1(func(_ context.Context, n int) (string, error) {
			return strings.Repeat("x", n), nil
		}, "n"),
		"fail": rpccore.Func0(func(context.Context) (int, error) {
			return 0, &rpccore.Error{Code: 4711, Message: "failed on purpose", Data: map[string]string{"at": name}}
		}),
		"note": rpccore.Proc1(func(_ context.Context, x string) error {
			s.mu.Lock()
			s.notes = append(s.notes, x)
			s.mu.Unlock()
			return nil
		}, "x"),
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			_ = wsconn.Serve(s.wsCtx, w, r, rpc, wsconn.Options{}, rpccore.PeerConfig{})
			return
		}
		s.posts.Add(1)
		s.mu.Lock()
		intercept := s.intercept
		s.mu.Unlock()
		if intercept != nil && intercept(w, r) {
			return
		}
		body, _ := io.ReadAll(r.Body)
		doc := rpccore.ReadDocument(body)
		s.calls.Add(int64(doc.Calls()))
		answer := rpc.ProcessDocument(r.Context(), doc, nil, nil)
		doc.Release()
		if len(answer) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	t.Cleanup(s.stop)
	return s
}

// stop ends the server and its WebSocket connections.
func (s *server) stop() {
	s.wsCancel()
	s.CloseClientConnections()
	s.Close()
}

// ws is the server's WebSocket URL.
func (s *server) ws() string { return "ws" + strings.TrimPrefix(s.URL, "http") }

// setIntercept sets s.intercept.
func (s *server) setIntercept(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	s.intercept = f
	s.mu.Unlock()
}

// noted returns the notes received.
func (s *server) noted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}

// deadURL is the URL of a port nobody listens on.
func deadURL(t *testing.T, scheme string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return scheme + "://" + addr + "/rpc"
}

// provision provisions u, with health checks off unless it sets them, and
// cleans it up when the test ends. It logs through Caddy's default logger.
func provision(t *testing.T, u *Upstream) *Upstream {
	t.Helper()
	if u.HealthInterval == 0 {
		u.HealthInterval = -1
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := u.Provision(ctx); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	t.Cleanup(func() { _ = u.Cleanup() })
	return u
}

// front is an endpoint's server with the local method local() and the
// upstream services us mounted after it.
func front(t *testing.T, us ...*Upstream) *rpccore.Server {
	t.Helper()
	s := rpccore.NewServer()
	if err := s.Register("local", rpccore.Func0(func(context.Context) (string, error) { return "here", nil })); err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		if err := u.RegisterMethods(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// call processes doc on s within 10 seconds.
func call(t *testing.T, s *rpccore.Server, doc string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return string(s.Process(ctx, []byte(doc), nil))
}

// schemes are the transports the tests run over.
var schemes = []string{"http", "ws"}

// urlOf is s's URL for scheme.
func urlOf(s *server, scheme string) string {
	if scheme == "ws" {
		return s.ws()
	}
	return s.URL
}
