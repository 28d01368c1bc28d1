package wsconn_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// BenchmarkPipelined measures calls over one loopback WebSocket connection
// with 256 in flight; the client shares the machine.
func BenchmarkPipelined(b *testing.B) {
	url, _, _ := server(b, wsconn.Options{}, rpccore.PeerConfig{})
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseNow()
	req := []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	window := make(chan struct{}, 256)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	go func() {
		for range b.N {
			window <- struct{}{}
			if c.Write(ctx, websocket.MessageText, req) != nil {
				return
			}
		}
	}()
	for range b.N {
		if _, _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
		<-window
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rpc/s")
}
