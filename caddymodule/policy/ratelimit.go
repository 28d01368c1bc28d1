package policy

// ratelimit.go holds the rate_limit option of the handler and of stream
// listeners: zones that count calls per key, their checks and defaults,
// and their provisioning into per-method costs and a store of counters.

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Defaults of rate limit zones.
const (
	// DefaultRateLimitKey is the key of a zone that names none: the
	// client's IP address.
	DefaultRateLimitKey = "{http.request.remote.host}"
	// DefaultRateLimitMaxKeys is how many keys a zone keeps by default.
	DefaultRateLimitMaxKeys = 100000
)

// RateLimit limits how many calls each client may make: every call to a
// registered method (each call of a batch, each call of a WebSocket or
// stream message) counts against the zones that count its method. A call
// over a zone's limit is answered `-32005 Limit exceeded` with `data`
// `{"retry_after_ms": <wait>, "zone": "<name>"}` while the other calls of
// its batch still run; a notification over it is dropped. Over HTTP, a
// request all of whose calls a limit refused is answered `429 Too Many
// Requests` with `Retry-After` (seconds), and still the JSON-RPC answer.
//
// With the NATS hub, every zone but a local one is shared by the nodes of
// the hub (the same NATS, the same subject_prefix): each node decides
// from its own counts plus what the others reported, and reports what it
// spent every sync interval. The nodes may together admit, beyond the
// zone's budget, what the others admitted in their last sync interval and
// had not reported yet.
type RateLimit struct {
	// The zones, by name. A call runs only if every zone that counts its
	// method has room for it; zones of the same name with the same events,
	// window, max_keys and sharing share their counts, across handlers,
	// stream listeners and configuration reloads.
	Zones map[string]*RateLimitZone `json:"zones,omitempty"`

	// How often each node reports what its shared zones spent to the
	// other nodes of the NATS hub; ignored without it. At least 10ms.
	// Default: 1s, or a tenth of the zone's window when that is shorter
	// (at least 10ms).
	SyncInterval caddy.Duration `json:"sync_interval,omitempty"`
}

// RateLimitZone allows each key a number of events per window. The count
// works as a generic cell rate algorithm: a key may spend its whole budget
// at once and regains one event every window/events, so over any long run
// it gets at most events per window. The counts are kept in this process,
// and shared with the other nodes of the NATS hub when the endpoint has
// one and the zone is not local.
type RateLimitZone struct {
	// What calls are counted by: a Caddy placeholder, or text with
	// placeholders, such as `{http.request.remote.host}` (the client's IP
	// address), `{http.auth.user.id}` (the user basic_auth or forward_auth
	// authenticated), `{http.request.header.X-Api-Key}`. Calls whose key is
	// the same share one budget; a key without placeholders is one budget
	// for every client. Resolved once per HTTP request, and once per
	// connection for WebSocket (from the upgrade request) and streams
	// (where only `{http.request.remote.host}`, `{http.request.remote.port}`,
	// `{http.request.remote}` and Caddy's global placeholders are known).
	// Default: `{http.request.remote.host}`.
	Key string `json:"key,omitempty"`

	// How many events each key may spend per window. Required.
	Events int64 `json:"events,omitempty"`

	// The window the events are counted over. Required.
	Window caddy.Duration `json:"window,omitempty"`

	// Which methods the zone counts, as patterns of Go's path.Match (the
	// syntax of `methods allow`). Default: every method.
	Methods []string `json:"methods,omitempty"`

	// What a call spends, by method: the first cost whose pattern matches
	// the method applies. Default: 1 event per call.
	Costs []RateLimitCost `json:"costs,omitempty"`

	// How many keys the zone keeps about. When it is full, a new key makes
	// it forget keys whose budget is whole again (forgetting them changes
	// nothing), and then those nearest to whole. Default: 100000.
	MaxKeys int `json:"max_keys,omitempty"`

	// Keeps the zone's counts in this process even when the endpoint's
	// hub is NATS: each node gives each key the whole budget.
	Local bool `json:"local,omitempty"`
}

// RateLimitCost is what a call to the methods a pattern matches spends.
type RateLimitCost struct {
	// A method name pattern, as in `methods`.
	Method string `json:"method,omitempty"`
	// The events a call spends: at least 1, at most the zone's events.
	Cost int64 `json:"cost,omitempty"`
}

// check fails for zones that cannot work, naming the zone and the option.
func (rl *RateLimit) Check() error {
	if len(rl.Zones) == 0 {
		return fmt.Errorf("rate_limit: no zone")
	}
	if rl.SyncInterval != 0 && time.Duration(rl.SyncInterval) < MinRateLimitSyncInterval {
		return fmt.Errorf("rate_limit sync_interval: must be at least %s, got %s",
			MinRateLimitSyncInterval, time.Duration(rl.SyncInterval))
	}
	for _, name := range slices.Sorted(maps.Keys(rl.Zones)) {
		if err := rl.Zones[name].check(); err != nil {
			return fmt.Errorf("rate_limit zone %s: %w", name, err)
		}
	}
	return nil
}

// check fails for a zone that cannot work, naming the option.
func (z *RateLimitZone) check() error {
	if z == nil {
		return fmt.Errorf("empty zone")
	}
	switch {
	case z.Events <= 0:
		return fmt.Errorf("events: required, and must be greater than zero")
	case z.Window <= 0:
		return fmt.Errorf("window: required, and must be greater than zero")
	case time.Duration(z.Window)/time.Duration(z.Events) == 0:
		return fmt.Errorf("window: %s is too short for %d events", time.Duration(z.Window), z.Events)
	case z.MaxKeys < 0:
		return fmt.Errorf("max_keys: must not be negative, got %d", z.MaxKeys)
	}
	for _, p := range z.Methods {
		if err := checkPattern(p); err != nil {
			return fmt.Errorf("methods: %w", err)
		}
	}
	for _, c := range z.Costs {
		if err := checkPattern(c.Method); err != nil {
			return fmt.Errorf("cost: %w", err)
		}
		if c.Cost <= 0 {
			return fmt.Errorf("cost %s: must be greater than zero, got %d", c.Method, c.Cost)
		}
		if c.Cost > z.Events {
			return fmt.Errorf("cost %s: %d is more than the zone's %d events, so those calls could never run",
				c.Method, c.Cost, z.Events)
		}
	}
	return nil
}

// KeyOrDefault returns the zone's key, with its default.
func (z *RateLimitZone) KeyOrDefault() string {
	if z.Key == "" {
		return DefaultRateLimitKey
	}
	return z.Key
}

// costOf returns what a call to method spends in the zone, 0 when the zone
// does not count it. The patterns have been checked.
func (z *RateLimitZone) costOf(method string) int64 {
	if len(z.Methods) > 0 && !matchesAny(z.Methods, method) {
		return 0
	}
	for _, c := range z.Costs {
		if ok, _ := path.Match(c.Method, method); ok {
			return c.Cost
		}
	}
	return 1
}

// matchesAny reports whether one of the patterns matches name.
func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// zone is a provisioned rate limit zone.
type zone struct {
	name    string
	cfg     *RateLimitZone
	keyIdx  int     // which of the policy's keys counts calls here
	costs   []int64 // by method index (policy.index); 0: not counted
	uniform bool    // whether every call costs 1, whatever its method
	store   limiterStore
	poolKey string // the store's key in zoneStores
	refused prometheus.Counter
	data    string // the end of a refusal's data: `,"zone":"<name>"}`
}

// release gives up the zone's hold on its store: the last configuration
// that uses it destroys it.
func (z *zone) release() { _, _ = zoneStores.Delete(z.poolKey) }

// zoneStores holds the stores of the zones in use, so that a reload (or
// another endpoint naming the same zone) keeps counting where the last
// configuration was.
var zoneStores = caddy.NewUsagePool()

// newZone provisions the zone name, shared through sh unless sh is nil or
// the zone is local; release gives its store up.
func newZone(ctx caddy.Context, name string, cfg *RateLimitZone, keyIdx int, sh *sharing) (*zone, error) {
	maxKeys := cfg.MaxKeys
	if maxKeys == 0 {
		maxKeys = DefaultRateLimitMaxKeys
	}
	window := time.Duration(cfg.Window)
	poolKey := name + "|" + strconv.FormatInt(cfg.Events, 10) + "|" + strconv.FormatInt(int64(cfg.Window), 10) +
		"|" + strconv.Itoa(maxKeys)
	if cfg.Local {
		sh = nil
	}
	if sh != nil {
		poolKey += fmt.Sprintf("|shared %p %d", sh.hub, sh.syncInterval(window))
	}
	v, _, err := zoneStores.LoadOrNew(poolKey, func() (caddy.Destructor, error) {
		local := newLocalStore(cfg.Events, window, maxKeys)
		if sh == nil {
			return local, nil
		}
		return newSharedStore(local, name, window, sh)
	})
	if err != nil {
		return nil, fmt.Errorf("rate_limit zone %s: %w", name, err)
	}
	quoted, _ := json.Marshal(name)
	return &zone{
		name:    name,
		cfg:     cfg,
		keyIdx:  keyIdx,
		uniform: len(cfg.Methods) == 0 && len(cfg.Costs) == 0,
		store:   v.(limiterStore),
		poolKey: poolKey,
		refused: rateLimited().WithLabelValues(name),
		data:    `,"zone":` + string(quoted) + `}`,
	}, nil
}

// resolve computes the cost of each method, by index.
func (z *zone) resolve(methods []string) {
	z.costs = make([]int64, len(methods))
	for i, m := range methods {
		z.costs[i] = z.cfg.costOf(m)
	}
}

// cost returns what a call to the method of index idx spends, or, for a
// method registered after provisioning (idx < 0), to method.
func (z *zone) cost(idx int32, method string) int64 {
	if z.uniform {
		return 1
	}
	if idx >= 0 {
		return z.costs[idx]
	}
	return z.cfg.costOf(method)
}

// refusal is the error answering a call the zone refused, wait
// nanoseconds before it would have had room.
func (z *zone) refusal(wait int64) *rpccore.Error {
	z.refused.Inc()
	data := make([]byte, 0, 40+len(z.data))
	data = append(data, `{"retry_after_ms":`...)
	data = strconv.AppendInt(data, ceilDiv(wait, int64(time.Millisecond)), 10)
	data = append(data, z.data...)
	return &rpccore.Error{Code: rpccore.CodeLimitExceeded, Message: LimitExceededMessage, Data: rpccore.RawJSON(data)}
}

// LimitExceededMessage is the message of the -32005 error answering a
// call over a rate limit.
const LimitExceededMessage = "Limit exceeded"

// ceilDiv is a/b rounded up, for positive a and b.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
