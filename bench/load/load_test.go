package load

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const answer = `{"jsonrpc":"2.0","result":3,"id":1}`

// newTLSServer starts an HTTPS server speaking HTTP/1.1 and HTTP/2 that
// answers every POST with answer.
func newTLSServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestRunCountsRequestsOverEachProtocol(t *testing.T) {
	srv := newTLSServer(t)
	for _, h2 := range []bool{false, true} {
		res, err := Run(context.Background(), Config{
			URL: srv.URL + "/rpc", Body: []byte(`{}`), HTTP2: h2, Conns: 4, Requests: 200,
			ExpectBody: []byte(answer), ExpectContentType: "application/json", CallsPerRequest: 100,
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 200 || res.CallsPerSec <= 0 || res.P99 <= 0 {
			t.Fatalf("h2=%v: %+v", h2, res)
		}
	}
}

func TestRunsShareTheConnectionsTheyAreGiven(t *testing.T) {
	var dials atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, r.URL.Path)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	for _, h2 := range []bool{false, true} {
		dials.Store(0)
		clients, err := Open(Config{URL: srv.URL, HTTP2: h2, Conns: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/a", "/b", "/a"} {
			res, err := Run(context.Background(), Config{URL: srv.URL + path, Clients: clients, Requests: 30,
				ExpectBody: []byte(path)})
			if err != nil || res.Requests != 30 {
				t.Fatalf("h2=%v %s: %+v %v", h2, path, res, err)
			}
		}
		clients.Close()
		if n := dials.Load(); n > 3 {
			t.Errorf("h2=%v: %d connections for 3 clients over 3 runs", h2, n)
		}
	}
}

func TestRunStopsAtTheDuration(t *testing.T) {
	srv := newTLSServer(t)
	start := time.Now()
	res, err := Run(context.Background(), Config{
		URL: srv.URL, Body: []byte(`{}`), Conns: 2, Duration: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second || res.Requests == 0 {
		t.Fatalf("took %v: %+v", took, res)
	}
}

func TestRunFailsOnAWrongAnswer(t *testing.T) {
	srv := newTLSServer(t)
	_, err := Run(context.Background(), Config{
		URL: srv.URL, Body: []byte(`{}`), Requests: 10, ExpectBody: []byte(`{"other":1}`),
	})
	if err == nil || !strings.Contains(err.Error(), "body") {
		t.Fatalf("%v", err)
	}
}

func TestRunFailsOverAWrongProtocol(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	if _, err := Run(context.Background(), Config{URL: srv.URL, HTTP2: true, Requests: 3}); err == nil {
		t.Fatal("an HTTP/1.1-only server passed an HTTP/2 run")
	}
}

func TestRunRefusesTargetsOffThisMachine(t *testing.T) {
	for _, target := range []string{"https://example.com/rpc", "http://10.1.2.3:8080/", "https://[2001:db8::1]/", "ftp://127.0.0.1/"} {
		if _, err := Run(context.Background(), Config{URL: target, Requests: 1}); err == nil {
			t.Errorf("%s: no error", target)
		}
	}
	if _, err := Run(context.Background(), Config{URL: "http://8.8.8.8/", Requests: 1}); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("8.8.8.8: %v", err)
	}
}

func TestCheckURLAcceptsLoopback(t *testing.T) {
	for _, target := range []string{"https://127.0.0.1:8443/rpc", "http://localhost/", "https://[::1]:9000/", "http://127.3.4.5/"} {
		if err := CheckURL(target, "http", "https"); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
}

func TestDialsAreCheckedAfterResolution(t *testing.T) {
	if err := LoopbackOnly("tcp", "192.0.2.1:443", nil); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("192.0.2.1: %v", err)
	}
	if err := LoopbackOnly("tcp", "127.0.0.1:443", nil); err != nil {
		t.Errorf("127.0.0.1: %v", err)
	}
}

func TestRunNeedsABound(t *testing.T) {
	if _, err := Run(context.Background(), Config{URL: "http://127.0.0.1/"}); err == nil {
		t.Error("a run without duration or count was accepted")
	}
}
