package wsconn_test

// memory_bench_test.go measures what an idle WebSocket connection costs.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// BenchmarkIdleConnectionMemory reports the server's goroutines and memory
// (heap and stacks, client side included) per idle connection. Each round
// opens 500 connections, makes one call on each, and lets them idle.
func BenchmarkIdleConnectionMemory(b *testing.B) {
	for b.Loop() {
		idleConnections(b, 500)
	}
}

func idleConnections(t testing.TB, n int) {
	s := rpccore.NewServer()
	demo.Register(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wsconn.Serve(ctx, w, r, s, wsconn.Options{PingInterval: 30 * time.Second}, rpccore.PeerConfig{})
	}))
	defer ts.Close()
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	conns := make([]*websocket.Conn, n)
	for i := range conns {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
		c.Write(context.Background(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
		c.Read(context.Background())
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if b, ok := t.(*testing.B); ok {
		b.ReportMetric(float64(runtime.NumGoroutine()-g0)/float64(n), "goroutines/conn")
		b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/float64(n)/1024, "heap-KiB/conn")
		b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/float64(n)/1024, "stack-KiB/conn")
	}
	for _, c := range conns {
		c.CloseNow()
	}
}
