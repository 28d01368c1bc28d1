package streamconn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/nettest"
)

// writeCounter is a net.Conn whose writes are kept and counted.
type writeCounter struct {
	net.Conn
	writes [][]byte
}

func (w *writeCounter) Write(b []byte) (int, error) {
	w.writes = append(w.writes, append([]byte(nil), b...))
	return len(b), nil
}

func TestALongBatchIsWrittenInPiecesFromOneBuffer(t *testing.T) {
	for _, framing := range []Framing{Values, ContentLength} {
		server, client := net.Pipe()
		defer client.Close()
		nc := &writeCounter{Conn: server}
		c := New(nc, nil, Options{Framing: framing})
		ctx := context.Background()
		var want bytes.Buffer
		for i := range 3000 {
			msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"n","params":[%d,"%090d"]}`, i, i)
			if err := c.WriteMessage(ctx, msg); err != nil {
				t.Fatal(err)
			}
			if framing == ContentLength {
				fmt.Fprintf(&want, "Content-Length: %d\r\n\r\n", len(msg))
				want.Write(msg)
			} else {
				want.Write(msg)
				want.WriteByte('\n')
			}
		}
		if c.out != nil && cap(*c.out) > maxKeptWriteBuffer {
			t.Errorf("%v: the held buffer grew to %d bytes, past what the pool keeps", framing, cap(*c.out))
		}
		if err := c.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		got := bytes.Join(nc.writes, nil)
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%v: %d bytes written, want %d in order", framing, len(got), want.Len())
		}
		if len(nc.writes) < want.Len()/writeChunk {
			t.Errorf("%v: %d writes for %d bytes", framing, len(nc.writes), want.Len())
		}
		for i, w := range nc.writes {
			if len(w) > writeChunk {
				t.Errorf("%v: write %d of %d bytes, over the chunk's %d", framing, i, len(w), writeChunk)
			}
		}
	}
}

func TestAFlushToAClientThatDoesNotReadGivesUpAfterTheWriteTimeout(t *testing.T) {
	server, client := nettest.TCPPair(t)
	const timeout = 150 * time.Millisecond
	c := New(server, nil, Options{WriteTimeout: timeout})
	ctx := context.Background()
	// A flush long after the last one (its deadline has passed) still
	// writes: the deadline is renewed when it comes near.
	if err := c.WriteMessage(ctx, []byte(`{"first":true}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * timeout)
	if err := c.WriteMessage(ctx, []byte(`{"second":true}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ctx); err != nil {
		t.Fatalf("a flush after an idle spell failed: %v", err)
	}
	got := make([]byte, len(`{"first":true}`+"\n"+`{"second":true}`+"\n"))
	if _, err := io.ReadFull(client, got); err != nil {
		t.Fatal(err)
	}
	// Nobody reads from here on: the socket fills, and the flush blocked
	// on it fails within the timeout and the quarter more it may take.
	msg := bytes.Repeat([]byte("x"), 32<<10)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		if err := c.WriteMessage(ctx, msg); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err := c.Flush(ctx)
		if err == nil {
			continue
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the flush failed with %v, want a deadline", err)
		}
		if d := time.Since(start); d > 2*timeout {
			t.Fatalf("the flush gave up after %v, want at most about %v", d, timeout+timeout/4)
		}
		return
	}
	t.Fatal("flushing to a client that does not read never failed")
}
