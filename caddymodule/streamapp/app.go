// Package streamapp is the `jsonrpc` Caddy app: JSON-RPC 2.0 over raw TCP,
// TLS and unix-socket streams, configured by the `jsonrpc` global option.
package streamapp

// app.go holds the app: its listeners, started and stopped with Caddy.

import (
	"errors"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
)

func init() {
	caddy.RegisterModule(App{})
}

// App serves JSON-RPC 2.0 over raw byte streams, beside (and independent
// of) the HTTP app: each of its listeners accepts TCP or unix-socket
// connections and serves services on them as the `jsonrpc` HTTP handler
// serves them over WebSocket.
//
// A listener whose address stays the same across a configuration reload is
// kept open (Caddy's listener pool), so no connection attempt is refused
// during the reload; the connections the old configuration accepted are
// closed once the answers already computed are written, and clients
// reconnect. Stopping waits for calls in flight up to the shutdown grace.
type App struct {
	// The stream listeners.
	Listeners []*StreamListener `json:"listeners,omitempty"`

	// How long stopping (or a reload) waits for calls in flight before
	// cancelling them. Default: 5s.
	ShutdownGrace caddy.Duration `json:"shutdown_grace,omitempty"`

	listeners []*streamServer
	logger    *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "jsonrpc",
		New: func() caddy.Module { return new(App) },
	}
}

// Provision checks every listener, loads its services and prepares its
// TLS configuration. Nothing listens until Start.
func (a *App) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	if err := conf.CheckOptions(conf.Option{Name: "shutdown_grace", Value: int64(a.ShutdownGrace), Duration: true}); err != nil {
		return fmt.Errorf("jsonrpc %w", err)
	}
	if err := registerStreamCollectors(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	grace := time.Duration(a.ShutdownGrace)
	for _, l := range a.Listeners {
		s, err := newStreamServer(ctx, l, grace, a.logger)
		if err != nil {
			return err
		}
		a.listeners = append(a.listeners, s)
	}
	return nil
}

// Start opens every listener's addresses and starts accepting. An address
// taken by another process is a clear error.
func (a *App) Start() error {
	for i, s := range a.listeners {
		if err := s.start(); err != nil {
			for _, started := range a.listeners[:i] {
				started.stop()
			}
			return err
		}
	}
	return nil
}

// Stop stops accepting, lets every connection write the answers already
// computed (waiting for calls in flight up to the shutdown grace), and
// closes them.
func (a *App) Stop() error {
	var errs []error
	for _, s := range a.listeners {
		errs = append(errs, s.stop())
	}
	return errors.Join(errs...)
}

// Cleanup forgets the listeners; their hubs are modules, which Caddy
// cleans up with the configuration.
func (a *App) Cleanup() error {
	for _, s := range a.listeners {
		s.endpoint.Release()
	}
	a.listeners = nil
	return nil
}

// Interface guards
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
)
