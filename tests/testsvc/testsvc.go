// Package testsvc is the jsonrpc.services.testsvc module, which the
// integration tests mount: methods that are slow, panic, or echo.
package testsvc

import (
	"context"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(Service{})
}

// Service serves sleep(ms, key), panic(), echo(v) and ask(q), which
// asks the client over its connection (client_answer(q)) and answers
// what the client said.
type Service struct{}

// CaddyModule returns the Caddy module information.
func (Service) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "jsonrpc.services.testsvc",
		New: func() caddy.Module { return new(Service) },
	}
}

// RegisterMethods registers sleep, panic, echo and ask into s.
func (Service) RegisterMethods(s *rpccore.Server) error {
	return s.RegisterMethods(rpccore.Methods{
		"sleep": rpccore.Func2(Sleep, "ms", "key").Default("key", "").Blocking(),
		"panic": rpccore.Proc0(func(context.Context) error { panic("test panic") }),
		"echo": rpccore.Func1(func(_ context.Context, v rpccore.RawJSON) (rpccore.RawJSON, error) {
			return v, nil
		}, "v"),
		"ask": rpccore.Func1(Ask, "q").Blocking(),
	})
}

// started holds the keys of the sleep calls that began.
var started sync.Map

// Started reports whether a sleep call with key began: the server received
// it and ran the method.
func Started(key string) bool {
	_, ok := started.Load(key)
	return ok
}

// Sleep records key (when not empty) as started, waits ms milliseconds, or
// until the call is cancelled, and returns ms.
func Sleep(ctx context.Context, ms int, key string) (int, error) {
	if key != "" {
		started.Store(key, true)
	}
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
		return ms, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Ask notifies the client (client_note("asked " + q)), calls
// client_answer(q) on it and returns "client said " + its answer. Over HTTP
// there is no client to ask: it answers an error.
func Ask(ctx context.Context, q string) (string, error) {
	p := rpccore.PeerFrom(ctx)
	if p == nil {
		return "", &rpccore.Error{Code: rpccore.CodeServerError, Message: "ask needs a WebSocket or stream connection"}
	}
	if err := p.Notify("client_note", []string{"asked " + q}); err != nil {
		return "", err
	}
	var answer string
	if err := p.Call(ctx, "client_answer", []string{q}, &answer); err != nil {
		return "", err
	}
	return "client said " + answer, nil
}

// Interface guards
var _ caddymodule.Service = (*Service)(nil)
