// Package endpoint builds what the jsonrpc handler and a stream listener
// serve alike: their services mounted into one rpccore.Server with its
// limits, method filter, metrics, hub, call gate, call tracing and
// rpc.discover, and the Caddyfile options that configure it. Of the modules, it imports only the
// default hub (hubs/local); the handler and the app import it.
package endpoint

// endpoint.go provisions what the jsonrpc handler and a stream listener
// have alike: their services mounted into one rpccore.Server with the
// configured limits and method filter, the call metrics, the shared hub,
// and the call gate of rate limits and per-identity methods.

import (
	"encoding/json"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs"

	// The default hub, which hubs.Load loads when none is configured.
	_ "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/local"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpctrace"
)

// Options are the options the handler and a listener share, as their
// JSON fields give them.
type Options struct {
	MaxRequestName  string // how the configuration names MaxRequestBody
	MaxRequestBody  int64
	MaxBatch        int
	MaxResponseBody int64
	MaxDepth        int
	Concurrency     int
	Methods         *policy.MethodFilter
	RateLimit       *policy.RateLimit
	Hub             json.RawMessage // the owner's HubRaw
	OpenRPC         *caddymodule.OpenRPCConfig
}

// check fails for option values that cannot work, naming the option.
func (o *Options) check() error {
	if err := conf.CheckOptions(
		conf.Option{Name: o.MaxRequestName, Value: o.MaxRequestBody},
		conf.Option{Name: "max_batch", Value: int64(o.MaxBatch)},
		conf.Option{Name: "max_response_body", Value: o.MaxResponseBody},
		conf.Option{Name: "max_depth", Value: int64(o.MaxDepth)},
		conf.Option{Name: "concurrency", Value: int64(o.Concurrency)},
	); err != nil {
		return err
	}
	if o.Methods != nil {
		if err := o.Methods.Validate(); err != nil {
			return err
		}
	}
	if o.RateLimit != nil {
		return o.RateLimit.Check()
	}
	return nil
}

// Endpoint is a provisioned set of services behind one rpccore.Server.
type Endpoint struct {
	Server  *rpccore.Server
	Metrics *Metrics
	Hub     rpccore.Hub
	Policy  *policy.Policy // nil without rate limits and per-identity methods
	MaxBody int64          // the request limit in force
}

// Provision checks o, loads the services of owner's ServicesRaw
// field (a struct pointer, as caddy.Context.LoadModule takes it) and
// mounts them into a new server whose observer feeds the call metrics and
// peers, and logs panics through *logger; then it adds rpc.discover, unless
// o turns it off. Its hub is the owner's HubRaw module (the local hub by
// default), which Caddy cleans up with the configuration.
func Provision(ctx caddy.Context, owner any, o Options, peers PeerEvents, logger **zap.Logger) (*Endpoint, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := registerCollectors(ctx.GetMetricsRegistry()); err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	mods, err := ctx.LoadModule(owner, "ServicesRaw")
	if err != nil {
		return nil, fmt.Errorf("loading services: %w", err)
	}
	var services []mountedService
	if mods != nil {
		if services, err = asServices(mods.([]any)); err != nil {
			return nil, err
		}
	}
	hub, err := hubs.Load(ctx, owner, o.Hub)
	if err != nil {
		return nil, err
	}
	pol, err := policy.New(ctx, o.RateLimit, o.Methods, hub, *logger)
	if err != nil {
		return nil, err
	}
	e := &Endpoint{Metrics: newMetrics(), Hub: hub, Policy: pol, MaxBody: o.MaxRequestBody}
	provisioned := false
	defer func() {
		if !provisioned {
			e.Release()
		}
	}()
	if e.MaxBody == 0 {
		e.MaxBody = rpccore.DefaultMaxRequestBytes
	}
	opts := []rpccore.Option{
		rpccore.WithMaxRequestBytes(int(e.MaxBody)),
		rpccore.WithMaxBatch(o.MaxBatch),
		rpccore.WithMaxResponseBytes(int(o.MaxResponseBody)),
		rpccore.WithMaxDepth(o.MaxDepth),
		rpccore.WithBatchConcurrency(o.Concurrency),
		rpccore.WithObserver(&endpointObserver{Metrics: e.Metrics, PeerEvents: peers, logger: logger}),
		rpccore.WithCallTimingSample(callTimingSample),
		rpccore.WithHub(hub),
		// A span per call under a traced request or connection; nothing
		// but a look into the call's context without one.
		rpccore.WithCallTracer(rpctrace.Tracer{}),
	}
	switch f := o.Methods; {
	case f == nil:
	case f.Identity != nil:
		// The methods no caller may call are not served at all.
		opts = append(opts, rpccore.WithMethodFilter(pol.Exposes))
	case len(f.Allow) > 0 || len(f.Deny) > 0:
		opts = append(opts, rpccore.WithMethodFilter(f.Allows))
	}
	if pol != nil {
		opts = append(opts, rpccore.WithCallGate(pol.Gate))
	}
	e.Server = rpccore.NewServer(opts...)
	if err := mount(e.Server, services); err != nil {
		return nil, err
	}
	if err := registerDiscovery(e.Server, o.OpenRPC, e.Policy); err != nil {
		return nil, err
	}
	methods := e.Server.Methods()
	if pol != nil {
		pol.Resolve(methods)
	}
	if len(services) == 0 {
		(*logger).Warn("no service mounted: every call will answer -32601 Method not found")
	}
	if o.Methods != nil {
		for _, p := range o.Methods.Unused(methods) {
			(*logger).Warn("methods allow pattern matches no exposed method", zap.String("pattern", p))
		}
	}
	provisioned = true
	return e, nil
}

// release gives up what the endpoint holds beyond its configuration's
// modules: the stores of its rate limit zones.
func (e *Endpoint) Release() {
	if e != nil {
		e.Policy.Release()
	}
}
