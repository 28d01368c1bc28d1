package msgload

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
)

// echoServer echoes every message, after a ping, split into two frames
// when it is long.
func echoServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20)
		ctx := context.Background()
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			if len(msg) > 10 {
				wr, err := c.Writer(ctx, websocket.MessageText)
				if err != nil {
					return
				}
				wr.Write(msg[:5])
				wr.Write(msg[5:])
				if wr.Close() != nil {
					return
				}
				continue
			}
			if c.Write(ctx, websocket.MessageText, msg) != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// roundTripper is what both connections share.
type roundTripper interface {
	WriteMany(msgs ...[]byte) error
	ReadMessage(dst []byte) ([]byte, error)
	Close() error
}

func TestConnAndReaderRoundTripMessagesOfEverySize(t *testing.T) {
	url := echoServer(t)
	c, err := Dial(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	r, err := DialReader(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	for name, rt := range map[string]roundTripper{"Conn": c, "Reader": r} {
		defer rt.Close()
		var buf []byte
		for _, n := range []int{0, 1, 9, 125, 126, 65535, 65536, 200000} {
			msg := []byte(strings.Repeat("abcdefghij", n/10+1)[:n])
			if err := rt.WriteMany(msg); err != nil {
				t.Fatal(err)
			}
			got, err := rt.ReadMessage(buf)
			if err != nil || string(got) != string(msg) {
				t.Fatalf("%s, %d bytes: got %d bytes, %v", name, n, len(got), err)
			}
			buf = got
		}
	}
}

func TestDialRefusesTargetsOffThisMachine(t *testing.T) {
	for _, target := range []string{"ws://example.com/rpc", "wss://10.0.0.1/", "http://127.0.0.1/"} {
		if _, err := Dial(context.Background(), target); err == nil {
			t.Errorf("%s: dialled", target)
		}
		if _, err := DialReader(context.Background(), target); err == nil {
			t.Errorf("%s: dialled a reader", target)
		}
	}
	if _, err := Dial(context.Background(), "ws://8.8.8.8/"); !errors.Is(err, load.ErrNotLoopback) {
		t.Errorf("8.8.8.8: %v", err)
	}
}

func TestDialFailsWithoutAnUpgrade(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("%v", err)
	}
}

func TestExpectChecksIdAndResultInAnyOrder(t *testing.T) {
	e := Expect{1: "3", 5: `"Foo"`, 3: "1.23"}
	for _, ok := range []string{
		`{"jsonrpc":"2.0","result":3,"id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":3.0}`,
		`{"jsonrpc":"2.0","id":5,"result":"Foo"}`,
		`{"jsonrpc":"2.0","result":1.23,"id":3}`,
	} {
		if err := e.Check([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
		for _, end := range []string{"", "\n", "\r\n"} {
			if err := e.Prepare().Check([]byte(ok + end)); err != nil {
				t.Errorf("prepared, %q: %v", ok+end, err)
			}
		}
	}
	for _, bad := range []string{
		`{"jsonrpc":"2.0","result":4,"id":1}`,
		`{"jsonrpc":"2.0","result":3,"id":2}`,
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"x"},"id":1}`,
		`{"result":3,"id":1}`,
		`{"jsonrpc":"2.0","result":"Fo","id":5}`,
	} {
		if e.Check([]byte(bad)) == nil {
			t.Errorf("%s accepted", bad)
		}
		if e.Prepare().Check([]byte(bad)) == nil {
			t.Errorf("prepared, %s accepted", bad)
		}
	}
}

func TestWritesTimesEveryRound(t *testing.T) {
	w, err := OpenWrites(20, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	times, err := Times(context.Background(), w, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 3 {
		t.Fatalf("%d rounds timed, want 3", len(times))
	}
	for _, d := range times {
		if d <= 0 {
			t.Fatalf("a round took %v", d)
		}
	}
}

func TestWritesReadTimesEveryRoundUntilEveryReaderHasIt(t *testing.T) {
	w, err := OpenWrites(200, 100, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	times, err := Times(context.Background(), w, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 5 {
		t.Fatalf("%d rounds timed, want 5", len(times))
	}
	for _, d := range times {
		if d <= 0 || d > 10*time.Second {
			t.Fatalf("a round took %v", d)
		}
	}
}

func TestDialStreamRefusesTargetsOffThisMachine(t *testing.T) {
	if _, err := DialStream(context.Background(), "tcp", "8.8.8.8:53"); !errors.Is(err, load.ErrNotLoopback) {
		t.Errorf("8.8.8.8: %v", err)
	}
	if _, err := DialStream(context.Background(), "udp", "127.0.0.1:53"); err == nil {
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

func TestStreamConnReadsLinesLongerThanTheBuffer(t *testing.T) {
	server, client := net.Pipe()
	c := newStreamConn(client)
	long := strings.Repeat("x", 200<<10)
	go func() { server.Write([]byte("short\n" + long + "\n")); server.Close() }()
	for _, want := range []string{"short", long} {
		got, err := c.ReadMessage(nil)
		if err != nil || string(got) != want {
			t.Fatalf("%d bytes, %v; want %d", len(got), err, len(want))
		}
	}
}
