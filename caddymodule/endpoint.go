package caddymodule

// endpoint.go provisions what the jsonrpc handler and a stream listener
// have alike: their services mounted into one rpccore.Server with the
// configured limits and method filter, the call metrics, the shared hub,
// and the call gate of rate limits and per-identity methods.

import (
	"encoding/json"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// endpointOptions are the options the handler and a listener share, as
// their JSON fields give them.
type endpointOptions struct {
	maxRequestName  string // how the configuration names maxRequestBody
	maxRequestBody  int64
	maxBatch        int
	maxResponseBody int64
	maxDepth        int
	concurrency     int
	methods         *MethodFilter
	rateLimit       *RateLimit
	hub             json.RawMessage // the owner's HubRaw
	openrpc         *OpenRPCConfig
}

// check fails for option values that cannot work, naming the option.
func (o *endpointOptions) check() error {
	if err := checkOptions(
		option{name: o.maxRequestName, value: o.maxRequestBody},
		option{name: "max_batch", value: int64(o.maxBatch)},
		option{name: "max_response_body", value: o.maxResponseBody},
		option{name: "max_depth", value: int64(o.maxDepth)},
		option{name: "concurrency", value: int64(o.concurrency)},
	); err != nil {
		return err
	}
	if o.methods != nil {
		if err := o.methods.validate(); err != nil {
			return err
		}
	}
	if o.rateLimit != nil {
		return o.rateLimit.check()
	}
	return nil
}

// endpoint is a provisioned set of services behind one rpccore.Server.
type endpoint struct {
	server  *rpccore.Server
	metrics *metrics
	hub     rpccore.Hub
	policy  *policy // nil without rate limits and per-identity methods
	maxBody int64   // the request limit in force
}

// provisionEndpoint checks o, loads the services of owner's ServicesRaw
// field (a struct pointer, as caddy.Context.LoadModule takes it) and
// mounts them into a new server whose observer feeds the call metrics and
// peers, and logs panics through *logger; then it adds rpc.discover, unless
// o turns it off. Its hub is the owner's HubRaw module (the local hub by
// default), which Caddy cleans up with the configuration.
func provisionEndpoint(ctx caddy.Context, owner any, o endpointOptions, peers peerEvents, logger **zap.Logger) (*endpoint, error) {
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
	hub, err := loadHub(ctx, owner, o.hub)
	if err != nil {
		return nil, err
	}
	pol, err := newPolicy(ctx, o, hub, *logger)
	if err != nil {
		return nil, err
	}
	e := &endpoint{metrics: newMetrics(), hub: hub, policy: pol, maxBody: o.maxRequestBody}
	provisioned := false
	defer func() {
		if !provisioned {
			e.release()
		}
	}()
	if e.maxBody == 0 {
		e.maxBody = rpccore.DefaultMaxRequestBytes
	}
	opts := []rpccore.Option{
		rpccore.WithMaxRequestBytes(int(e.maxBody)),
		rpccore.WithMaxBatch(o.maxBatch),
		rpccore.WithMaxResponseBytes(int(o.maxResponseBody)),
		rpccore.WithMaxDepth(o.maxDepth),
		rpccore.WithBatchConcurrency(o.concurrency),
		rpccore.WithObserver(&endpointObserver{metrics: e.metrics, peerEvents: peers, logger: logger}),
		rpccore.WithCallTimingSample(callTimingSample),
		rpccore.WithHub(hub),
	}
	switch f := o.methods; {
	case f == nil:
	case f.Identity != nil:
		// The methods no caller may call are not served at all.
		opts = append(opts, rpccore.WithMethodFilter(pol.identity.exposesAny))
	case len(f.Allow) > 0 || len(f.Deny) > 0:
		opts = append(opts, rpccore.WithMethodFilter(f.allows))
	}
	if pol != nil {
		opts = append(opts, rpccore.WithCallGate(pol.gate))
	}
	e.server = rpccore.NewServer(opts...)
	if err := mount(e.server, services); err != nil {
		return nil, err
	}
	if err := registerDiscovery(e.server, o.openrpc, e.policy); err != nil {
		return nil, err
	}
	methods := e.server.Methods()
	if pol != nil {
		pol.resolve(methods)
	}
	if len(services) == 0 {
		(*logger).Warn("no service mounted: every call will answer -32601 Method not found")
	}
	if o.methods != nil {
		for _, p := range o.methods.unused(methods) {
			(*logger).Warn("methods allow pattern matches no exposed method", zap.String("pattern", p))
		}
	}
	provisioned = true
	return e, nil
}

// release gives up what the endpoint holds beyond its configuration's
// modules: the stores of its rate limit zones.
func (e *endpoint) release() {
	if e != nil {
		e.policy.release()
	}
}
