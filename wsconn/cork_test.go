package wsconn

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

func TestCorkHoldsWritesUntilUncorked(t *testing.T) {
	server, client := tcpPair(t)
	c := newCorkConn(server, nil)
	c.cork()
	c.Write([]byte("one "))
	c.Write([]byte("two"))
	client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _ := client.Read(make([]byte, 16)); n != 0 {
		t.Fatal("corked writes reached the network")
	}
	if err := c.uncork(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	if c.held != nil {
		t.Fatal("the write buffer is kept between flushes")
	}
	client.SetReadDeadline(time.Now().Add(time.Second))
	got := make([]byte, 7)
	if _, err := io.ReadFull(client, got); err != nil || string(got) != "one two" {
		t.Fatalf("read %q, %v", got, err)
	}
}

func TestInterruptWritesEndsABlockedFlush(t *testing.T) {
	server, _ := tcpPair(t) // the client never reads
	c := newCorkConn(server, nil)
	c.cork()
	c.Write(make([]byte, 16<<20)) // more than the socket buffers take
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
	c.cork()
	c.Write([]byte("later"))
	if err := c.uncork(context.Background(), time.Minute); !errors.Is(err, errWritesInterrupted) {
		t.Fatalf("a flush after the interruption returned %v", err)
	}
}
