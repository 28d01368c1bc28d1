package demo_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// TestRegisterServesTheDesignedMethods checks that Register exposes every
// method the design lists, and nothing twice.
func TestRegisterServesTheDesignedMethods(t *testing.T) {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	got := s.Methods()
	slices.Sort(got)
	want := []string{"NullableFloatToNullableFloat", "StringMe", "Test2", "add", "addInt", "delay", "demo_publish",
		"demo_subscribe", "demo_unsubscribe", "get_data", "notify_hello", "notify_sum", "subtract", "sum", "update"}
	if !slices.Equal(got, want) {
		t.Fatalf("methods %v, want %v", got, want)
	}
	if err := demo.Register(s); err == nil {
		t.Fatal("registering the demo twice on one server did not fail")
	}
}

func TestPublishChecksTheRoom(t *testing.T) {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	got := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"demo_publish","params":["lobby","hi"],"id":1}`), nil))
	if !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, `no room \"lobby\"`) {
		t.Fatalf("publish to an unknown room: %s", got)
	}
	got = string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"demo_publish","params":["chat","hi"],"id":1}`), nil))
	if got != `{"jsonrpc":"2.0","result":true,"id":1}` {
		t.Fatalf("publish to chat: %s", got)
	}
}

func TestDelayWaitsWithinBounds(t *testing.T) {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"delay","params":[30],"id":1}`), nil))
	if got != `{"jsonrpc":"2.0","result":30,"id":1}` || time.Since(start) < 30*time.Millisecond {
		t.Fatalf("delay 30: %s after %v", got, time.Since(start))
	}
	for _, ms := range []string{"-1", "10001"} {
		got := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"delay","params":[`+ms+`],"id":1}`), nil))
		if !strings.Contains(got, `"code":-32602`) {
			t.Errorf("delay %s: %s", ms, got)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := demo.Delay(ctx, 5000); err == nil {
		t.Error("a cancelled delay returned no error")
	}
}
