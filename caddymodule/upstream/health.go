package upstream

// health.go checks the servers every health_interval: any JSON-RPC answer
// to health_method, an error included, shows a server up.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// healthLoop checks every server at once, then every health_interval,
// until ctx ends.
func (u *Upstream) healthLoop(ctx context.Context) {
	tick := time.NewTicker(u.healthInterval())
	defer tick.Stop()
	for {
		u.checkAll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// checkAll checks every server, at the same time.
func (u *Upstream) checkAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, t := range u.targets {
		wg.Go(func() { u.check(ctx, t) })
	}
	wg.Wait()
}

// check calls health_method on t and marks it up or down, within the
// shorter of timeout and health_interval.
func (u *Upstream) check(ctx context.Context, t *target) {
	cctx, cancel := context.WithTimeout(ctx, min(u.timeout(), u.healthInterval()))
	defer cancel()
	c, err := t.clientFor(cctx, true)
	if err == nil {
		err = c.Call(cctx, nil, u.healthMethod())
	}
	if _, answered := errors.AsType[*rpccore.Error](err); err == nil || answered {
		t.markUp()
		return
	}
	if ctx.Err() != nil {
		return // stopping
	}
	t.markDown(0, fmt.Errorf("health check: %w", err))
}

// healthMethod is the method the checks call.
func (u *Upstream) healthMethod() string {
	if u.HealthMethod != "" {
		return u.HealthMethod
	}
	return DefaultHealthMethod
}
