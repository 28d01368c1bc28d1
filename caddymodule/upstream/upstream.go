// Package upstream is the jsonrpc.services.upstream Caddy module: a service
// that forwards calls to other JSON-RPC servers over HTTP or WebSocket,
// mounted with `service upstream { to <urls...> }` beside local services
// on one endpoint.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(new(Upstream))
}

// Defaults of the options.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxResponse    = rpccore.DefaultMaxResponseBytes // 25 MiB
	DefaultMaxBatch       = 100
	DefaultHealthInterval = 10 * time.Second
	DefaultHealthMethod   = "rpc.discover"
	DefaultFailDuration   = 10 * time.Second
)

// Upstream forwards calls to other JSON-RPC 2.0 servers: every call whose
// method matches `methods` and that no local service on the endpoint
// registers goes to the first of its `to` servers that is up. The calls of
// one batch bound for this service leave together as one batch (split at
// `max_batch`), concurrently with the batch's other calls, and their
// answers take their places in the batch's answer; the clients' ids stay
// on this side. A server that cannot take a call (refused, unreachable,
// marked down, HTTP 503) is skipped for the next one; a call whose outcome
// became unknown after it was sent (the connection was lost, `timeout`
// passed) is sent again to the next server only when its method is
// `idempotent`. Active health checks call `health_method` on each server
// every `health_interval`: any JSON-RPC answer, an error included, shows a
// server up. Calls this service cannot answer get these errors, with
// `{"upstream": <name>, "error": <what happened>}` as their data:
// -32002 "Upstream unavailable" (no server took the call, which ran
// nowhere), -32020 "Upstream outcome unknown" (it was sent and no answer
// came), -32003 "Response too large" (the answer was over
// `max_response`) and -32021 "Bad upstream answer" (not a JSON-RPC
// answer). An upstream's own error answers pass through unchanged.
type Upstream struct {
	// The upstream servers, as URLs: `http://` or `https://` (a POST per
	// call or batch, over pooled keep-alive connections) or `ws://` or
	// `wss://` (one persistent connection, redialled when lost). Calls go
	// to the first one that is up (see `select`). Required.
	To []string `json:"to,omitempty"`

	// The methods forwarded: patterns in Go's path.Match syntax (`*`
	// matches any run of characters but `/`, `?` one character, `[a-z]`
	// a class). A method that a local service on the same endpoint
	// registers is answered locally even when a pattern matches it; when
	// two upstream services' patterns match a name, the one mounted first
	// takes it. Default: `*`, every method no local service registers.
	Methods []string `json:"methods,omitempty"`

	// A prefix taken off each forwarded call's method name before it is
	// sent: with `methods a_*` and `strip_prefix a_`, a client's a_add
	// calls add upstream. It lets one endpoint reach servers whose method
	// names are the same. `methods` and `idempotent` match the name the
	// client called. Default: none.
	StripPrefix string `json:"strip_prefix,omitempty"`

	// Methods that are safe to run twice (patterns, as in `methods`): a
	// call of one whose outcome became unknown after it was sent is sent
	// again to the next server. Default: none.
	Idempotent []string `json:"idempotent,omitempty"`

	// The name of this upstream in metrics, logs and error data. Default:
	// the first `to` URL, without its user information.
	Name string `json:"name,omitempty"`

	// How calls pick a server: `first` (the default) sends every call to
	// the first server that is up, the others standing by;
	// `round_robin` starts each upstream request at the next server in
	// turn.
	Select string `json:"select,omitempty"`

	// How long one upstream request (a call or a batch) may take, from
	// sending to the whole answer. Default: 30s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	// The largest answer of one upstream request, in bytes (a batch's
	// answer as a whole). A larger answer is not read past the limit: its
	// calls are answered -32003, and the client's connection goes on.
	// Over WebSocket the upstream connection is dropped and redialled, so
	// the other calls in flight on it fail too. Default: 25 MiB.
	MaxResponse int64 `json:"max_response,omitempty"`

	// The most calls in one upstream batch: the calls of a client's batch
	// bound for this upstream leave in batches of at most this many, sent
	// at the same time. Default: 100.
	MaxBatch int `json:"max_batch,omitempty"`

	// How often each server is checked by calling `health_method`. A
	// server that fails a check is down until one passes. A negative
	// value (`health_interval off` in the Caddyfile) turns the checks
	// off. Default: 10s.
	HealthInterval caddy.Duration `json:"health_interval,omitempty"`

	// The method the health checks call, without params. Any JSON-RPC
	// answer shows the server up, so a method the server lacks (answered
	// -32601) will do. Default: `rpc.discover`.
	HealthMethod string `json:"health_method,omitempty"`

	// How long a server that failed a call (refused the connection, lost
	// it, answered HTTP 502, 503 or 504) stays down, unless a health check
	// passes first. Default: 10s.
	FailDuration caddy.Duration `json:"fail_duration,omitempty"`

	// HTTP headers sent with every upstream request and WebSocket
	// handshake (an API key, say).
	Header map[string][]string `json:"header,omitempty"`

	// PEM files of the certificate authorities that `https://` and
	// `wss://` servers' certificates must chain to. Default: the system's
	// roots.
	TLSCA []string `json:"tls_ca,omitempty"`

	// The name the servers' certificates are checked against (and sent
	// as SNI). Default: each URL's host.
	TLSServerName string `json:"tls_server_name,omitempty"`

	// Accept any certificate from the servers. Only for tests: it lets
	// anyone in the path read and change the calls.
	TLSInsecureSkipVerify bool `json:"tls_insecure_skip_verify,omitempty"`

	targets    []*target
	idempotent []string
	roundRobin bool
	next       atomic.Uint64 // round_robin's turn
	metrics    *upstreamMetrics
	logger     *zap.Logger
	stop       context.CancelFunc
	checks     sync.WaitGroup
}

// CaddyModule returns the Caddy module information.
func (*Upstream) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "jsonrpc.services.upstream",
		New: func() caddy.Module { return new(Upstream) },
	}
}

// Provision checks the options, sets up a client for each server and
// starts the health checks. WebSocket servers are dialled when first
// needed, so a server that is down does not fail the configuration.
func (u *Upstream) Provision(ctx caddy.Context) error {
	u.logger = ctx.Logger()
	if err := u.Validate(); err != nil {
		return err
	}
	if err := registerCollectors(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	tlsConfig, err := u.tlsConfig()
	if err != nil {
		return err
	}
	if u.Name == "" {
		u.Name = redact(u.To[0])
	}
	u.idempotent = u.Idempotent
	u.roundRobin = u.Select == "round_robin"
	u.metrics = newUpstreamMetrics(u.Name)
	for _, addr := range u.To {
		t, err := newTarget(addr, u.targetOptions(tlsConfig), tlsConfig, u.metrics, u.logger)
		if err != nil {
			u.closeTargets()
			return err
		}
		u.targets = append(u.targets, t)
	}
	checkCtx, stop := context.WithCancel(context.Background())
	u.stop = stop
	if u.healthInterval() > 0 {
		u.checks.Go(func() { u.healthLoop(checkCtx) })
	}
	return nil
}

// Validate checks the options, naming the one that is wrong.
func (u *Upstream) Validate() error {
	if len(u.To) == 0 {
		return errors.New("upstream to: want at least one URL")
	}
	for _, addr := range u.To {
		if _, err := parseAddress(addr); err != nil {
			return fmt.Errorf("upstream to: %w", err)
		}
	}
	for _, list := range []struct {
		option   string
		patterns []string
	}{{"methods", u.Methods}, {"idempotent", u.Idempotent}} {
		for _, p := range list.patterns {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				return fmt.Errorf("upstream %s: bad pattern %q", list.option, p)
			}
		}
	}
	switch {
	case u.Select != "" && u.Select != "first" && u.Select != "round_robin":
		return fmt.Errorf("upstream select: %q is not first or round_robin", u.Select)
	case u.Timeout < 0:
		return errors.New("upstream timeout: must not be negative")
	case u.MaxResponse < 0:
		return errors.New("upstream max_response: must not be negative")
	case u.MaxResponse > int64(^uint(0)>>1):
		return errors.New("upstream max_response: too large")
	case u.MaxBatch < 0:
		return errors.New("upstream max_batch: must not be negative")
	case u.FailDuration < 0:
		return errors.New("upstream fail_duration: must not be negative")
	}
	for _, file := range u.TLSCA {
		if file == "" {
			return errors.New("upstream tls_ca: empty file name")
		}
	}
	return nil
}

// RegisterMethods registers the service's method patterns on s: the calls
// that match them and no local method serves are forwarded.
func (u *Upstream) RegisterMethods(s *rpccore.Server) error {
	patterns := u.Methods
	if len(patterns) == 0 {
		patterns = []string{"*"}
	}
	return s.RegisterForwarder(patterns, u)
}

// Cleanup stops the health checks and closes the connections.
func (u *Upstream) Cleanup() error {
	if u.stop != nil {
		u.stop()
	}
	u.checks.Wait()
	u.closeTargets()
	return nil
}

// closeTargets closes the servers' clients.
func (u *Upstream) closeTargets() {
	for _, t := range u.targets {
		t.close()
	}
}

// timeout is the bound of one upstream request.
func (u *Upstream) timeout() time.Duration {
	if u.Timeout > 0 {
		return time.Duration(u.Timeout)
	}
	return DefaultTimeout
}

// maxBatch is the most calls in one upstream batch.
func (u *Upstream) maxBatch() int {
	if u.MaxBatch > 0 {
		return u.MaxBatch
	}
	return DefaultMaxBatch
}

// healthInterval is the time between health checks, 0 when they are off.
func (u *Upstream) healthInterval() time.Duration {
	switch {
	case u.HealthInterval < 0:
		return 0
	case u.HealthInterval > 0:
		return time.Duration(u.HealthInterval)
	}
	return DefaultHealthInterval
}

// failDuration is how long a failed server stays down.
func (u *Upstream) failDuration() time.Duration {
	if u.FailDuration > 0 {
		return time.Duration(u.FailDuration)
	}
	return DefaultFailDuration
}

// isIdempotent reports whether method may be sent twice.
func (u *Upstream) isIdempotent(method string) bool {
	for _, p := range u.idempotent {
		if ok, _ := path.Match(p, method); ok {
			return true
		}
	}
	return false
}

// Interface guards
var (
	_ caddymodule.Service = (*Upstream)(nil)
	_ caddy.Provisioner   = (*Upstream)(nil)
	_ caddy.Validator     = (*Upstream)(nil)
	_ caddy.CleanerUpper  = (*Upstream)(nil)
	_ rpccore.Forwarder   = (*Upstream)(nil)
)
