package rpcclient

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// httpServer serves srv over HTTP POST, as the Caddy handler does, and
// counts the requests.
type httpServer struct {
	*httptest.Server
	posts   atomic.Int64
	headers sync.Map // the last value of each header seen
}

func startHTTPServer(t *testing.T, srv *rpccore.Server) *httpServer {
	s := &httpServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.posts.Add(1)
		for k, v := range r.Header {
			s.headers.Store(k, v[0])
		}
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		answer := srv.Process(r.Context(), body, nil)
		if len(answer) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestHTTP(t *testing.T) {
	srv := startHTTPServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.URL, WithHeader("X-Api-Key", "k1"))
	ctx := testContext(t)
	if v, err := CallT[float64](ctx, c, "add", 1, 2); err != nil || v != 3 {
		t.Fatalf("add: %v, %v", v, err)
	}
	if v, _ := srv.headers.Load("X-Api-Key"); v != "k1" {
		t.Fatalf("header %v", v)
	}
	if v, err := CallT[float64](ctx, c, "subtract", Named{"subtrahend": 1, "minuend": 3}); err != nil || v != 2 {
		t.Fatalf("subtract: %v, %v", v, err)
	}
	var rpcErr *rpccore.Error
	if err := c.Call(ctx, nil, "fail"); !errors.As(err, &rpcErr) || rpcErr.Code != 4711 {
		t.Fatalf("fail: %v", err)
	}
	if err := c.Notify(ctx, "notify_hello", 1); err != nil {
		t.Fatal(err)
	}
	var s string
	batch := []BatchElem{{Method: "StringMe", Args: []any{"a"}, Result: &s}, {Method: "nope"}}
	if err := c.BatchCall(ctx, batch); err != nil || s != "a" || !errors.As(batch[1].Error, &rpcErr) || rpcErr.Code != rpccore.CodeMethodNotFound {
		t.Fatalf("batch: %v %q %v", err, s, batch)
	}
	if _, err := c.Subscribe(ctx, "demo", make(chan int), "ticks", 1); !errors.Is(err, ErrNotificationsUnsupported) {
		t.Fatalf("subscribe over HTTP: %v", err)
	}
}

func TestHTTPBatchWindow(t *testing.T) {
	srv := startHTTPServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.URL, WithHTTPBatchWindow(20*time.Millisecond))
	ctx := testContext(t)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range 50 {
		wg.Go(func() {
			if v, err := CallT[int](ctx, c, "addInt", i, 1); err != nil || v != i+1 {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d calls failed", failed.Load())
	}
	if n := srv.posts.Load(); n > 5 {
		t.Fatalf("50 calls took %d POSTs", n)
	}
	var rpcErr *rpccore.Error
	if err := c.Call(ctx, nil, "fail"); !errors.As(err, &rpcErr) || rpcErr.Code != 4711 {
		t.Fatalf("fail in a gathered batch: %v", err)
	}
}

func TestHTTPErrors(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/teapot", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "short and stout", http.StatusTeapot)
	})
	mux.HandleFunc("/limited", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate limited","data":{"retry_ms":100}}}`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"`+strings.Repeat("x", 4096)+`"}`)
	})
	mux.HandleFunc("/garbage", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}")
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	ctx := testContext(t)
	var httpErr *HTTPError
	if err := dialTest(t, ts.URL+"/teapot").Call(ctx, nil, "x"); !errors.As(err, &httpErr) || httpErr.StatusCode != 418 {
		t.Fatalf("teapot: %v", err)
	}
	var rpcErr *rpccore.Error
	if err := dialTest(t, ts.URL+"/limited").Call(ctx, nil, "x"); !errors.As(err, &rpcErr) || rpcErr.Code != -32005 {
		t.Fatalf("limited: %v", err)
	}
	if err := dialTest(t, ts.URL+"/big", WithMaxMessage(1024)).Call(ctx, nil, "x"); !errors.Is(err, ErrAnswerTooLarge) {
		t.Fatalf("big: %v", err)
	}
	if err := dialTest(t, ts.URL+"/garbage").Call(ctx, nil, "x"); !errors.Is(err, ErrBadAnswer) {
		t.Fatalf("garbage: %v", err)
	}
}
