package trywrite

import (
	"bytes"
	"crypto/tls"
	"io"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/nettest"
)

func TestWriteTakesWhatTheSocketTakesAndNeverWaits(t *testing.T) {
	server, client := nettest.TCPPair(t)
	w := New(server)
	if !w.Able() {
		t.Skip("no raw socket writes on this platform")
	}
	n, err := w.Write([]byte("hello\n"))
	if n != 6 || err != nil {
		t.Fatalf("Write = %d, %v; want 6, nil", n, err)
	}
	got := make([]byte, 6)
	if _, err := io.ReadFull(client, got); err != nil || string(got) != "hello\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	// Nobody reads: writing goes on until the socket takes nothing, and
	// then returns 0 at once rather than waiting.
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	deadline := time.Now().Add(10 * time.Second)
	for {
		start := time.Now()
		n, err := w.Write(chunk)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("a write took %v", d)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the socket never filled")
		}
	}
}

func TestWriteAfterThePeerCloses(t *testing.T) {
	server, client := nettest.TCPPair(t)
	w := New(server)
	if !w.Able() {
		t.Skip("no raw socket writes on this platform")
	}
	client.Close()
	// The first write may still be taken; a later one fails.
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = w.Write([]byte("late\n"))
		time.Sleep(time.Millisecond)
	}
	if err == nil {
		t.Fatal("writing to a connection the peer closed never failed")
	}
	server.Close()
	if _, err := w.Write([]byte("x")); err == nil {
		t.Fatal("writing to a closed connection did not fail")
	}
}

func TestWritePastTheDeadlineWritesNothingAndReportsNoError(t *testing.T) {
	server, _ := nettest.TCPPair(t)
	w := New(server)
	if !w.Able() {
		t.Skip("no raw socket writes on this platform")
	}
	_ = server.SetWriteDeadline(time.Unix(1, 0))
	if n, err := w.Write([]byte("x")); n != 0 || err != nil {
		t.Fatalf("Write past the deadline = %d, %v; want 0, nil", n, err)
	}
}

func TestAConnectionWithoutItsSocketWritesNothing(t *testing.T) {
	server, _ := nettest.TCPPair(t)
	w := New(tls.Server(server, &tls.Config{}))
	if w.Able() {
		t.Fatal("a TLS connection's socket was written raw")
	}
	if n, err := w.Write([]byte("x")); n != 0 || err != nil {
		t.Fatalf("Write = %d, %v; want 0, nil", n, err)
	}
	var zero Writer
	if zero.Able() {
		t.Fatal("the zero Writer is able")
	}
}
