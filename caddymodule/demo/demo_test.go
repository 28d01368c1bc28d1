package demo

import (
	"context"
	"slices"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestModuleIsRegistered(t *testing.T) {
	info, err := caddy.GetModule("jsonrpc.services.demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.New().(*Service); !ok {
		t.Errorf("New returns %T", info.New())
	}
}

func TestRegisterMethods(t *testing.T) {
	s := rpccore.NewServer()
	if err := (Service{}).RegisterMethods(s); err != nil {
		t.Fatal(err)
	}
	names := s.Methods()
	for _, want := range []string{"subtract", "sum", "update", "notify_hello", "notify_sum", "get_data",
		"add", "addInt", "NullableFloatToNullableFloat", "Test2", "StringMe"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not registered", want)
		}
	}
	got := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`), nil))
	if want := `{"jsonrpc":"2.0","result":19,"id":1}`; got != want {
		t.Errorf("subtract: %s, want %s", got, want)
	}
}
