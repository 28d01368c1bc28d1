package wsconn_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// writeSizes are the messages the write benchmarks send: a small answer,
// and one large enough for masking to show.
var writeSizes = []struct {
	name string
	msg  []byte
}{
	{"small", []byte(`{"jsonrpc":"2.0","result":3,"id":1}`)},
	{"16KiB", []byte(`"` + strings.Repeat("x", 16<<10-2) + `"`)},
}

// BenchmarkWriteFlush measures one message written and flushed by each
// side of a loopback connection whose other end discards what it reads;
// the client's frames are masked.
func BenchmarkWriteFlush(b *testing.B) {
	for _, size := range writeSizes {
		b.Run("server/"+size.name, func(b *testing.B) { benchWriteFlush(b, acceptDiscarded(b), size.msg) })
	}
	for _, size := range writeSizes {
		b.Run("client/"+size.name, func(b *testing.B) { benchWriteFlush(b, dialDiscarded(b), size.msg) })
	}
}

// benchWriteFlush writes and flushes msg over c b.N times.
func benchWriteFlush(b *testing.B, c *wsconn.Conn, msg []byte) {
	ctx := context.Background()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.WriteMessage(ctx, msg); err != nil {
			b.Fatal(err)
		}
		if err := c.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// acceptDiscarded returns the server's end of a WebSocket connection whose
// client discards everything.
func acceptDiscarded(b *testing.B) *wsconn.Conn {
	accepted := make(chan *wsconn.Conn, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := wsconn.Accept(w, r, wsconn.Options{})
		if err != nil {
			b.Error(err)
		}
		accepted <- c
	}))
	b.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	nc, _, _, err := ws.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nc.Close() })
	go io.Copy(io.Discard, nc)
	c := <-accepted
	if c == nil {
		b.FailNow()
	}
	b.Cleanup(func() { c.CloseNow() })
	return c
}

// dialDiscarded returns the client's end of a WebSocket connection whose
// server discards everything.
func dialDiscarded(b *testing.B) *wsconn.Conn {
	url := rawServer(b, func(conn net.Conn) {
		_ = conn.SetDeadline(time.Time{}) // as long as the benchmark runs
		_, _ = io.Copy(io.Discard, conn)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := wsconn.Dial(ctx, url, wsconn.DialOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.CloseNow() })
	return c
}
