package readbuf

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/nettest"
)

// opaqueConn hides the connection's descriptor, as TLS does.
type opaqueConn struct{ net.Conn }

func TestReader(t *testing.T) {
	for _, direct := range []bool{true, false} {
		name := map[bool]string{true: "descriptor", false: "through the connection"}[direct]
		t.Run(name, func(t *testing.T) {
			server, client := nettest.TCPPair(t)
			conn := server
			if !direct {
				conn = opaqueConn{server}
			}
			r := New(conn, []byte("early "))
			if r.Direct() != (direct && canReadRaw) {
				t.Fatalf("reads the descriptor directly: %v", r.Direct())
			}
			if _, err := client.Write([]byte("bytes, then more")); err != nil {
				t.Fatal(err)
			}
			want := "early bytes, then more"
			got := make([]byte, 0, len(want))
			small := make([]byte, 3)
			for len(got) < len(want) {
				n, err := r.Read(small)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, small[:n]...)
			}
			if string(got) != want {
				t.Fatalf("read %q, want %q", got, want)
			}
			if r.Holding() {
				t.Fatal("a drained reader still holds its buffer")
			}

			// A read deadline in the past interrupts a waiting read, and
			// the reader goes on afterwards.
			go func() {
				time.Sleep(20 * time.Millisecond)
				server.SetReadDeadline(time.Unix(1, 0))
			}()
			if _, err := r.Read(small); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("interrupted read returned %v", err)
			}
			if r.Holding() {
				t.Fatal("an interrupted reader holds a buffer")
			}
			server.SetReadDeadline(time.Time{})
			client.Write([]byte("!"))
			if n, err := r.Read(small); err != nil || string(small[:n]) != "!" {
				t.Fatalf("read %q, %v after the interruption", small[:n], err)
			}

			client.Close()
			if _, err := r.Read(small); err != io.EOF {
				t.Fatalf("read after the client closed returned %v, want EOF", err)
			}
		})
	}
}

func TestFillAndConsume(t *testing.T) {
	for _, direct := range []bool{true, false} {
		server, client := nettest.TCPPair(t)
		conn := server
		if !direct {
			conn = opaqueConn{server}
		}
		r := New(conn, nil)
		client.Write([]byte("abcdef"))
		if err := r.Fill(); err != nil {
			t.Fatal(err)
		}
		if len(r.Buffered()) == 0 {
			t.Fatal("Fill returned with nothing buffered")
		}
		if !r.Holding() {
			t.Fatal("buffered bytes without a borrowed buffer")
		}
		b := r.Buffered()
		first := b[0]
		if err := r.Fill(); err != nil || r.Buffered()[0] != first {
			t.Fatalf("Fill with bytes buffered read again: %v", err)
		}
		r.Consume(len(r.Buffered()))
		if r.Holding() {
			t.Fatalf("direct %v: consumed reader still holds its buffer", direct)
		}
		client.Close()
		for {
			err := r.Fill()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			r.Consume(len(r.Buffered()))
		}
		if r.Holding() {
			t.Fatal("reader at EOF holds a buffer")
		}
	}
}

func TestLargeInput(t *testing.T) {
	server, client := nettest.TCPPair(t)
	r := New(server, nil)
	want := make([]byte, 5*Size+123)
	for i := range want {
		want[i] = byte(i * 7)
	}
	go func() {
		client.Write(want)
		client.Close()
	}()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("read %d bytes that differ from the %d written", len(got), len(want))
	}
}

func TestBeforeReadRunsOnlyWhenNothingIsBuffered(t *testing.T) {
	for _, direct := range []bool{true, false} {
		server, client := nettest.TCPPair(t)
		conn := server
		if !direct {
			conn = opaqueConn{server}
		}
		r := New(conn, []byte("ab"))
		calls := 0
		r.BeforeRead = func() { calls++ }
		one := make([]byte, 1)
		r.Read(one) // from the early bytes
		r.Read(one)
		if calls != 0 {
			t.Fatalf("direct %v: BeforeRead ran %d times while bytes were buffered", direct, calls)
		}
		client.Write([]byte("c"))
		if _, err := r.Read(one); err != nil || one[0] != 'c' {
			t.Fatalf("read %q, %v", one, err)
		}
		if calls != 1 {
			t.Fatalf("direct %v: BeforeRead ran %d times for one read of the connection, want 1", direct, calls)
		}
		client.Write([]byte("d"))
		if err := r.Fill(); err != nil || calls != 2 {
			t.Fatalf("direct %v: Fill: %v, BeforeRead ran %d times, want 2", direct, err, calls)
		}
	}
}
