package rpcclient

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// newTestRPCServer returns the demo service plus methods that use the
// connection back to the client.
func newTestRPCServer(t testing.TB) *rpccore.Server {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	err := s.RegisterMethods(rpccore.Methods{
		"askClient": rpccore.Func1(func(ctx context.Context, q string) (string, error) {
			p := rpccore.PeerFrom(ctx)
			if err := p.Notify("client_note", []string{"asked " + q}); err != nil {
				return "", err
			}
			var answer string
			if err := p.Call(ctx, "client_answer", []string{q}, &answer); err != nil {
				return "", err
			}
			return "client said " + answer, nil
		}, "q").Blocking(),
		"fail": rpccore.Func0(func(context.Context) (int, error) {
			return 0, &rpccore.Error{Code: 4711, Message: "failed on purpose", Data: map[string]int{"n": 1}}
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// streamServer serves an rpccore server over TCP, and can drop its
// connections or stop and start again on the same address.
type streamServer struct {
	t       testing.TB
	srv     *rpccore.Server
	network string
	addr    string

	mu    sync.Mutex
	l     net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// startStreamServer serves srv on a loopback port until the test ends.
func startStreamServer(t testing.TB, srv *rpccore.Server) *streamServer {
	return startStreamServerOn(t, srv, "tcp", "127.0.0.1:0")
}

// startStreamServerOn serves srv on a listener of network at addr.
func startStreamServerOn(t testing.TB, srv *rpccore.Server, network, addr string) *streamServer {
	s := &streamServer{t: t, srv: srv, network: network, conns: map[net.Conn]struct{}{}}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	s.serve(l)
	t.Cleanup(s.stop)
	return s
}

func (s *streamServer) url() string {
	if s.network == "unix" {
		return s.addr
	}
	return "tcp://" + s.addr
}

func (s *streamServer) serve(l net.Listener) {
	s.mu.Lock()
	s.l = l
	s.mu.Unlock()
	s.wg.Go(func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			if s.l != l { // stopped meanwhile
				s.mu.Unlock()
				_ = nc.Close()
				return
			}
			s.conns[nc] = struct{}{}
			s.mu.Unlock()
			s.wg.Go(func() {
				_ = streamconn.New(nc, nil, streamconn.Options{}).Serve(context.Background(), s.srv, rpccore.PeerConfig{})
				s.mu.Lock()
				delete(s.conns, nc)
				s.mu.Unlock()
			})
		}
	})
}

// dropConnections closes every connection; the listener stays.
func (s *streamServer) dropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for nc := range s.conns {
		_ = nc.Close()
	}
}

// stop closes the listener and every connection, and waits for them.
func (s *streamServer) stop() {
	s.mu.Lock()
	if s.l != nil {
		_ = s.l.Close()
		s.l = nil
	}
	s.mu.Unlock()
	s.dropConnections()
	s.wg.Wait()
}

// restart listens again on the same address.
func (s *streamServer) restart() {
	var l net.Listener
	var err error
	for range 100 {
		if l, err = net.Listen(s.network, s.addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	s.serve(l)
}

// startWebSocketServer serves srv over WebSocket until the test ends.
func startWebSocketServer(t testing.TB, srv *rpccore.Server) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wsconn.Serve(r.Context(), w, r, srv, wsconn.Options{}, rpccore.PeerConfig{})
	}))
	t.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http")
}

// dialTest dials url with fast backoff and closes the client when the
// test ends.
func dialTest(t testing.TB, url string, opts ...Option) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts = append([]Option{WithBackoff(5*time.Millisecond, 50*time.Millisecond)}, opts...)
	c, err := Dial(ctx, url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// testContext returns a context that ends with the test or after 10s.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
