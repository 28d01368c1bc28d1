// Package policy decides each call before it runs: rate limits (zones
// counted per call, their stores, and their counts shared through a hub
// between nodes) and the methods each identity may call, for the jsonrpc
// handler and the stream listeners alike.
package policy

// policy.go is the call gate of an endpoint with rate limits or
// per-identity methods: each transport binds a caller once per HTTP
// request or connection (its keys resolved, its counters held, its method
// set chosen), and the gate decides each call from the caller its context
// carries with one map lookup, a bit test and, per zone counting the
// method, one atomic update.

import (
	"context"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/openrpc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Policy is an endpoint's rate limits and per-identity methods.
type Policy struct {
	index    map[string]int32 // the registered methods, by name, at provisioning
	quick    [256]quickIndex  // most of index, found without hashing: see methodIndex
	keys     []keyTemplate    // the distinct keys of the zones and the identity
	zones    []*zone          // in name order
	identity *identityMethods // nil: every caller sees the same methods
	byMethod bool             // whether a decision depends on the method: else index is not looked up
}

// New provisions the rate limits rl and the per-identity methods of
// methods; nil when there are neither. Its zones share their counts through hub when it carries
// rate limit reports (the NATS hub), logging to log.
func New(ctx caddy.Context, rl *RateLimit, methods *MethodFilter, hub rpccore.Hub, log *zap.Logger) (*Policy, error) {
	var identity *MethodIdentity
	if methods != nil {
		identity = methods.Identity
	}
	if rl == nil && identity == nil {
		return nil, nil
	}
	p := &Policy{index: map[string]int32{}, byMethod: identity != nil}
	if rl != nil {
		var sh *sharing
		if s, ok := hub.(LimitSharer); ok {
			sh = &sharing{hub: s, interval: time.Duration(rl.SyncInterval), log: log}
		}
		for _, name := range slices.Sorted(maps.Keys(rl.Zones)) {
			cfg := rl.Zones[name]
			z, err := newZone(ctx, name, cfg, p.keyIndex(cfg.KeyOrDefault()), sh)
			if err != nil {
				p.Release() // the zones made so far
				return nil, err
			}
			p.zones = append(p.zones, z)
			p.byMethod = p.byMethod || !z.uniform
		}
	}
	if identity != nil {
		p.identity = newIdentityMethods(identity, methods.rules(), p.keyIndex(identity.Key))
	}
	return p, nil
}

// release gives up the zones' stores, once the configuration is done.
func (p *Policy) Release() {
	if p == nil {
		return
	}
	for _, z := range p.zones {
		z.release()
	}
}

// keyIndex returns the index of the key text in p.keys, adding it.
func (p *Policy) keyIndex(text string) int {
	for i, k := range p.keys {
		if k.text == text {
			return i
		}
	}
	p.keys = append(p.keys, newKeyTemplate(text))
	return len(p.keys) - 1
}

// resolve compiles the zones' costs and the identities' method sets over
// the methods the server registered. It must be called before serving.
func (p *Policy) Resolve(methods []string) {
	clashes := map[int]bool{}
	for i, m := range methods {
		p.index[m] = int32(i)
		slot := quickSlot(m)
		if p.quick[slot].name != "" || clashes[slot] {
			p.quick[slot], clashes[slot] = quickIndex{}, true // shared: the map decides
			continue
		}
		p.quick[slot] = quickIndex{name: m, idx: int32(i)}
	}
	for _, z := range p.zones {
		z.resolve(methods)
	}
	if p.identity != nil {
		p.identity.resolve(methods)
	}
}

// quickIndex is a method's index in a slot that no other method shares.
type quickIndex struct {
	name string
	idx  int32
}

// quickSlot places a method name in one of 256 slots, from its length and
// its first and last bytes.
func quickSlot(name string) int {
	n := len(name)
	if n == 0 {
		return 0
	}
	return (n*7 + int(name[0])*3 + int(name[n-1])) & 255
}

// methodIndex returns the index of method, or -1 for a method registered
// after provisioning. Most methods are found by one comparison, with no
// hashing: the gate runs on every call.
func (p *Policy) methodIndex(method string) int32 {
	if q := &p.quick[quickSlot(method)]; q.name == method && q.name != "" {
		return q.idx
	}
	if i, known := p.index[method]; known {
		return i
	}
	return -1
}

// Caller is one HTTP request's or connection's standing: its counter in
// each zone and the methods it may call. Its methods are safe for the
// concurrent calls of a batch or a connection.
type Caller struct {
	policy   *Policy
	counters []limiterCounter // by zone
	inline   [2]limiterCounter
	methods  *methodSet // nil: the server's methods, unfiltered
	now      int64      // the time calls count at, when fixed
	fixed    bool       // whether now is fixed (an HTTP request) or read per call (a connection)
	refused  atomic.Int32
	wait     atomic.Int64 // the shortest wait of the refused calls, nanoseconds
}

// bind sets c up for the caller repl describes: it resolves each key once
// and holds each zone's counter until release. A caller bound with fixed
// counts every call at now (the arrival of an HTTP request); otherwise
// each call counts when it runs.
func (p *Policy) Bind(c *Caller, repl *caddy.Replacer, now int64, fixed bool) {
	c.policy, c.now, c.fixed = p, now, fixed
	var buf [4]string
	keys := buf[:0]
	for _, k := range p.keys {
		keys = append(keys, k.resolve(repl))
	}
	if p.identity != nil {
		c.methods = p.identity.setFor(keys[p.identity.keyIdx])
	}
	if len(p.zones) <= len(c.inline) {
		c.counters = c.inline[:len(p.zones)]
	} else {
		c.counters = make([]limiterCounter, len(p.zones))
	}
	for i, z := range p.zones {
		c.counters[i] = z.store.acquire(keys[z.keyIdx])
	}
}

// release gives up the counters, once the calls are done. (A call counted
// after would still count, on a counter the zone may have forgotten.)
func (c *Caller) Release() {
	for _, k := range c.counters {
		k.release()
	}
}

// callerKey is the context key of the bound caller.
type callerKey struct{}

// CallerContext carries a caller to the gate, in one allocation with the
// caller (an HTTP request's) or once per connection.
type CallerContext struct {
	context.Context
	Caller *Caller
}

// Value implements context.Context.
func (x *CallerContext) Value(key any) any {
	if _, ok := key.(callerKey); ok {
		return x.Caller
	}
	return x.Context.Value(key)
}

// BindConnection returns ctx carrying a caller bound for a connection
// (WebSocket or stream) that repl describes, whose calls count when they
// run. ReleaseConnection gives it up.
func BindConnection(ctx context.Context, p *Policy, repl *caddy.Replacer) context.Context {
	x := &CallerContext{Context: ctx, Caller: new(Caller)}
	p.Bind(x.Caller, repl, 0, false)
	return x
}

// ReleaseConnection releases the caller that BindConnection bound into
// ctx, if any.
func ReleaseConnection(ctx context.Context) {
	if x, ok := ctx.(*CallerContext); ok {
		x.Caller.Release()
	}
}

// gate is the endpoint's rpccore call gate.
func (p *Policy) Gate(ctx context.Context, method string) error {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	if c == nil {
		// No transport of this module calls without a caller; for any
		// other, the rules of a caller nothing names.
		var unbound Caller
		p.Bind(&unbound, nil, MonoNow(), true)
		defer unbound.Release()
		c = &unbound
	}
	idx := int32(-1) // unknown: the patterns decide (a method registered after provisioning)
	if p.byMethod {
		idx = p.methodIndex(method)
	}
	if c.methods != nil && !c.methods.has(idx, method) && method != openrpc.DiscoverMethod {
		return rpccore.ErrMethodHidden
	}
	if len(p.zones) == 0 {
		return nil
	}
	return c.count(idx, method)
}

// count counts the call in every zone that counts its method, or, when
// one has no room, in none, and answers the refusal.
func (c *Caller) count(idx int32, method string) error {
	now, read := c.now, c.fixed
	zones := c.policy.zones
	for i, z := range zones {
		cost := z.cost(idx, method)
		if cost == 0 {
			continue
		}
		if !read {
			now, read = MonoNow(), true
		}
		if wait := c.counters[i].take(now, cost); wait > 0 {
			for j, earlier := range zones[:i] {
				if cost := earlier.cost(idx, method); cost > 0 {
					c.counters[j].refund(cost)
				}
			}
			c.noteRefused(wait)
			return z.refusal(wait)
		}
	}
	return nil
}

// noteRefused counts a refused call and keeps the shortest wait.
func (c *Caller) noteRefused(wait int64) {
	c.refused.Add(1)
	for {
		w := c.wait.Load()
		if w != 0 && w <= wait {
			return
		}
		if c.wait.CompareAndSwap(w, wait) {
			return
		}
	}
}

// TooMany reports whether a rate limit refused every one of the calls of
// a document of items items, and if so how long, in whole seconds, until
// the first of them would have room: an HTTP request that gets nothing
// done is answered 429 with Retry-After.
func (c *Caller) TooMany(items int) (retryAfter int64, ok bool) {
	n := int(c.refused.Load())
	if n == 0 || n < max(items, 1) {
		return 0, false
	}
	return max(ceilDiv(c.wait.Load(), 1e9), 1), true
}
