// Package moduletest is what the unit tests of this repository's Caddy
// modules share: the services they mount (jsonrpc.services.handler_test
// and three that fail in their own ways), rate limit zones, and requests
// as Caddy hands them to handlers and matchers.
package moduletest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Methods is jsonrpc.services.handler_test, the methods the tests call:
// echo, boom (panics), whoami, wait (blocks until its context ends) and
// big.
type Methods struct{}

// CaddyModule returns the Caddy module information.
func (Methods) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "jsonrpc.services.handler_test", New: func() caddy.Module { return new(Methods) }}
}

// Waited receives the error of the context of each wait call once it ends.
var Waited = make(chan error, 1)

// RegisterMethods implements caddymodule.Service.
func (Methods) RegisterMethods(s *rpccore.Server) error {
	return errors.Join(
		s.Register("echo", rpccore.Func1(func(_ context.Context, v string) (string, error) { return v, nil }, "v")),
		s.Register("boom", rpccore.Func0(func(context.Context) (int, error) { panic("kaboom") })),
		s.Register("whoami", rpccore.Func0(func(ctx context.Context) ([]string, error) {
			info := rpccore.RequestInfoFrom(ctx)
			if info == nil {
				return nil, errors.New("no request info")
			}
			return []string{info.Transport, info.RemoteAddr, strings.Join(info.Header["X-Test"], ",")}, nil
		})),
		s.Register("wait", rpccore.Func0(func(ctx context.Context) (int, error) {
			<-ctx.Done()
			Waited <- ctx.Err()
			return 0, ctx.Err()
		}).Blocking()),
		s.Register("big", rpccore.Func1(func(_ context.Context, n int) (string, error) {
			return strings.Repeat("x", n), nil
		}, "n")),
	)
}

// Echo is jsonrpc.services.echo_test: echo alone, to collide with Methods.
type Echo struct{}

// CaddyModule returns the Caddy module information.
func (Echo) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "jsonrpc.services.echo_test", New: func() caddy.Module { return new(Echo) }}
}

// RegisterMethods implements caddymodule.Service.
func (Echo) RegisterMethods(s *rpccore.Server) error {
	return s.Register("echo", rpccore.Func1(func(_ context.Context, v string) (string, error) { return v, nil }, "v"))
}

// Failing is jsonrpc.services.failing_test, which cannot register its
// methods.
type Failing struct{}

// CaddyModule returns the Caddy module information.
func (Failing) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "jsonrpc.services.failing_test", New: func() caddy.Module { return new(Failing) }}
}

// RegisterMethods implements caddymodule.Service.
func (Failing) RegisterMethods(s *rpccore.Server) error {
	return s.Register("rpc.reserved", rpccore.Func0(func(context.Context) (int, error) { return 0, nil }))
}

// NotAService is jsonrpc.services.not_a_service_test, a module in the
// namespace that is no Service.
type NotAService struct{}

// CaddyModule returns the Caddy module information.
func (NotAService) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "jsonrpc.services.not_a_service_test", New: func() caddy.Module { return new(NotAService) }}
}

func init() {
	caddy.RegisterModule(Methods{})
	caddy.RegisterModule(Echo{})
	caddy.RegisterModule(Failing{})
	caddy.RegisterModule(NotAService{})
}

// Services returns the services field of a handler or listener for the
// named services.
func Services(names ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(names))
	for i, n := range names {
		out[i] = json.RawMessage(`{"service":"` + n + `"}`)
	}
	return out
}
