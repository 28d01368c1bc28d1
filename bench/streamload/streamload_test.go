package streamload

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
)

func TestDialRefusesTargetsOffThisMachine(t *testing.T) {
	if _, err := Dial(context.Background(), "tcp", "8.8.8.8:53"); !errors.Is(err, load.ErrNotLoopback) {
		t.Errorf("8.8.8.8: %v", err)
	}
	if _, err := Dial(context.Background(), "udp", "127.0.0.1:53"); err == nil {
		t.Error("udp dialled")
	}
}

func TestCheckItemFindsGapsAndStrangers(t *testing.T) {
	head := []byte(`{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":`)
	if err := checkItem(append(head[:len(head):len(head)], "7}}"...), head, 7); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"8}}", "7}", `"7"}}`} {
		if checkItem(append(head[:len(head):len(head)], bad...), head, 7) == nil {
			t.Errorf("%s accepted as 7", bad)
		}
	}
	if checkItem([]byte(`{"jsonrpc":"2.0","result":7,"id":1}`), head, 7) == nil {
		t.Error("an answer accepted as a notification")
	}
}

func TestReadMessageReadsLinesLongerThanTheBuffer(t *testing.T) {
	server, client := net.Pipe()
	c := newConn(client)
	long := strings.Repeat("x", 200<<10)
	go func() { server.Write([]byte("short\n" + long + "\n")); server.Close() }()
	for _, want := range []string{"short", long} {
		got, err := c.ReadMessage(nil)
		if err != nil || string(got) != want {
			t.Fatalf("%d bytes, %v; want %d", len(got), err, len(want))
		}
	}
}
