// Package conf holds what the configurations of this repository's Caddy
// modules check and parse alike: numeric options that must not be
// negative, the Caddyfile's sizes, counts, durations and `off`, options
// given once per block, and the reload-safe registration of Prometheus
// collectors. It imports none of the modules.
package conf
