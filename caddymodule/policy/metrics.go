package policy

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
)

// rateLimited counts the calls each rate limit zone refused: one family
// for the process, registered on the registry of each config Caddy loads,
// so that its counts survive reloads.
var rateLimited = sync.OnceValue(func() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "jsonrpc", Name: "rate_limited_total",
		Help: "JSON-RPC calls (notifications included) that a rate limit zone refused, by zone.",
	}, []string{"zone"})
})

// RegisterCollectors registers the rate limits' metrics on reg; again (a
// second endpoint, a reload) is not an error.
func RegisterCollectors(reg prometheus.Registerer) error {
	return conf.Register(reg, rateLimited())
}
