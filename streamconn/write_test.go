package streamconn

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"testing"
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
