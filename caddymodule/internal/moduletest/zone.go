package moduletest

import (
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
)

// Zone is a rate limit zone of events per hour, keyed by key.
func Zone(key string, events int64) *policy.RateLimitZone {
	return &policy.RateLimitZone{Key: key, Events: events, Window: caddy.Duration(time.Hour)}
}
