package rpcclient

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// rawServer answers each line a client sends with what reply returns for
// it, on every connection, until the test ends.
func rawServer(t *testing.T, reply func(request string) string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { nc.Close() })
			go func() {
				defer nc.Close()
				sc := bufio.NewScanner(nc)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					if _, err := nc.Write([]byte(reply(sc.Text()) + "\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "tcp://" + l.Addr().String()
}

// idOf returns the id member of a request line the client wrote.
func idOf(request string) string {
	i := strings.Index(request, `"id":`)
	if i < 0 {
		return "null"
	}
	rest := request[i+5:]
	return rest[:strings.IndexAny(rest, ",}")]
}

func TestBadInputDropsTheConnection(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer func(id string) string
	}{
		{"invalid JSON", func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":tru}` }},
		{"invalid UTF-8", func(id string) string { return `{"jsonrpc":"2.0","id":` + id + ",\"result\":\"\xff\"}" }},
		{"unknown id", func(string) string { return `{"jsonrpc":"2.0","id":999999,"result":1}` }},
		{"duplicate member", func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":1,"result":2}` }},
		{"wrong version", func(id string) string { return `{"jsonrpc":"1.0","id":` + id + `,"result":1}` }},
		{"not an object", func(string) string { return `42` }},
		{"null id", func(string) string {
			return `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
		}},
		{"too large", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":"` + strings.Repeat("x", 2048) + `"}`
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := rawServer(t, func(req string) string { return tt.answer(idOf(req)) })
			log := newStateLog()
			c := dialTest(t, url, WithStateFunc(log.record), WithMaxMessage(1024))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := c.Call(ctx, nil, "anything")
			if !errors.Is(err, ErrOutcomeUnknown) {
				t.Fatalf("call: %v", err)
			}
			if tt.name == "too large" && !errors.Is(err, ErrAnswerTooLarge) {
				t.Fatalf("oversized answer: %v", err)
			}
			t.Log(err)
			log.await(t, Reconnecting)
			log.await(t, Connected)
		})
	}
}

func TestMalformedAnswerFailsItsCallOnly(t *testing.T) {
	url := rawServer(t, func(req string) string {
		if strings.Contains(req, `"bad"`) {
			return `{"jsonrpc":"2.0","id":` + idOf(req) + `}`
		}
		return `{"jsonrpc":"2.0","id":` + idOf(req) + `,"result":7}`
	})
	c := dialTest(t, url)
	ctx := testContext(t)
	if err := c.Call(ctx, nil, "bad"); !errors.Is(err, ErrBadAnswer) {
		t.Fatalf("answer without result or error: %v", err)
	}
	if n, err := CallT[int](ctx, c, "good"); err != nil || n != 7 {
		t.Fatalf("the next call: %v, %v", n, err)
	}
}

func TestOversizedAnswerOverWebSocket(t *testing.T) {
	url := startWebSocketServer(t, newTestRPCServer(t))
	log := newStateLog()
	c := dialTest(t, url, WithMaxMessage(1024), WithStateFunc(log.record))
	ctx := testContext(t)
	err := c.Call(ctx, nil, "StringMe", strings.Repeat("x", 2048))
	if !errors.Is(err, ErrAnswerTooLarge) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("oversized answer: %v", err)
	}
	log.await(t, Connected)
	if s, err := CallT[string](ctx, c, "StringMe", "small"); err != nil || s != "small" {
		t.Fatalf("after the reconnect: %q, %v", s, err)
	}
}
