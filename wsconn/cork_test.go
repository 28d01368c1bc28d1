package wsconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/nettest"
)

func TestHeldFramesWaitForTheFlush(t *testing.T) {
	server, client := nettest.TCPPair(t)
	c := newCorkConn(server, nil)
	c.holdTextFrame([]byte("one"))
	c.holdTextFrame([]byte("two"))
	client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _ := client.Read(make([]byte, 16)); n != 0 {
		t.Fatal("held frames reached the network")
	}
	if err := c.uncork(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	if c.held != nil {
		t.Fatal("the write buffer is kept between flushes")
	}
	client.SetReadDeadline(time.Now().Add(time.Second))
	got := make([]byte, 10)
	if _, err := io.ReadFull(client, got); err != nil || string(got) != "\x81\x03one\x81\x03two" {
		t.Fatalf("read %q, %v", got, err)
	}
}

func TestTextFrameHeaders(t *testing.T) {
	for _, tt := range []struct {
		size   int
		header string
	}{
		{0, "\x81\x00"},
		{125, "\x81\x7d"},
		{126, "\x81\x7e\x00\x7e"},
		{65535, "\x81\x7e\xff\xff"},
		{65536, "\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00"},
	} {
		server, _ := nettest.TCPPair(t)
		c := newCorkConn(server, nil)
		msg := []byte(strings.Repeat("x", tt.size))
		c.holdTextFrame(msg)
		want := append([]byte(tt.header), msg...)
		if !bytes.Equal(*c.held, want) {
			t.Errorf("%d bytes: frame starts %q, want %q", tt.size, (*c.held)[:min(len(*c.held), 10)], tt.header)
		}
	}
}

func TestInterruptWritesEndsABlockedFlush(t *testing.T) {
	server, _ := nettest.TCPPair(t) // the client never reads
	c := newCorkConn(server, nil)
	c.holdTextFrame(make([]byte, 16<<20)) // more than the socket buffers take
	done := make(chan error, 1)
	go func() { done <- c.uncork(context.Background(), time.Minute) }()
	time.Sleep(50 * time.Millisecond)
	c.interruptWrites()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the interrupted flush reported success")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the flush was not interrupted")
	}
	c.holdTextFrame([]byte("later"))
	if err := c.uncork(context.Background(), time.Minute); !errors.Is(err, errWritesInterrupted) {
		t.Fatalf("a flush after the interruption returned %v", err)
	}
}

func TestNoDataFrameAfterAClose(t *testing.T) {
	server, _ := nettest.TCPPair(t)
	c := newCorkConn(server, nil)
	if err := c.writeClose(closeBody(StatusGoingAway, "")); err != nil { // close 1001
		t.Fatal(err)
	}
	if err := c.holdTextFrame([]byte("late")); err == nil {
		t.Fatal("a data frame was accepted after the close frame")
	}
}

func TestClientFramesAreMaskedInTheHeldBuffer(t *testing.T) {
	server, client := nettest.TCPPair(t)
	c := newCorkConn(client, nil)
	c.maskFrames()
	msg := []byte("a message the caller keeps")
	pong := []byte("pong payload")
	c.holdTextFrame(msg)
	c.writeControl(ws.OpPong, pong) // corked: held after the message
	c.writeClose(closeBody(StatusNormalClosure, "bye"))
	if string(msg) != "a message the caller keeps" || string(pong) != "pong payload" {
		t.Fatalf("the caller's slices were masked: %q, %q", msg, pong)
	}
	server.SetReadDeadline(time.Now().Add(time.Second))
	masks := map[[4]byte]bool{}
	for _, want := range []struct {
		op      ws.OpCode
		payload string
	}{
		{ws.OpText, string(msg)},
		{ws.OpPong, string(pong)},
		{ws.OpClose, string(closeBody(StatusNormalClosure, "bye"))},
	} {
		f, err := ws.ReadFrame(server)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Header.Masked || f.Header.OpCode != want.op {
			t.Fatalf("read %+v, want a masked %v frame", f.Header, want.op)
		}
		ws.Cipher(f.Payload, f.Header.Mask, 0)
		if string(f.Payload) != want.payload {
			t.Fatalf("%v frame unmasked to %q, want %q", want.op, f.Payload, want.payload)
		}
		masks[f.Header.Mask] = true
	}
	if len(masks) != 3 {
		t.Fatalf("3 frames had %d masks", len(masks))
	}
}
