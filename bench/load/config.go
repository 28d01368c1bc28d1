package load

// config.go holds what a run is asked to do.

import (
	"errors"
	"time"
)

// Config describes one load run.
type Config struct {
	// URL is the target; its host must be loopback.
	URL string
	// Body is sent as the body of every POST.
	Body []byte
	// ContentType is the request's Content-Type (default application/json).
	ContentType string
	// HTTP2 selects HTTP/2 (over TLS for https, cleartext for http);
	// otherwise HTTP/1.1.
	HTTP2 bool
	// Conns is the number of connections, each with one request in flight.
	Conns int
	// Duration bounds the timed run; zero means until Requests are sent.
	Duration time.Duration
	// Requests bounds the timed run by count; zero means until Duration.
	Requests int64
	// Warmup is spent sending requests before the clock starts.
	Warmup time.Duration
	// Timeout bounds each request (default 10s).
	Timeout time.Duration
	// Insecure skips TLS certificate verification (for a local CA).
	Insecure bool
	// ExpectStatus is the status every answer must have (default 200).
	ExpectStatus int
	// ExpectBody, when not nil, is the exact body every answer must have.
	ExpectBody []byte
	// ExpectContentType, when set, is the Content-Type every answer must have.
	ExpectContentType string
	// CallsPerRequest is the number of JSON-RPC calls a request holds (1,
	// or the batch size), used to report calls per second.
	CallsPerRequest int
}

// withDefaults returns c with its zero fields defaulted, or an error for a
// config that cannot run.
func (c Config) withDefaults() (Config, error) {
	if c.ContentType == "" {
		c.ContentType = "application/json"
	}
	if c.Conns <= 0 {
		c.Conns = 1
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.ExpectStatus == 0 {
		c.ExpectStatus = 200
	}
	if c.CallsPerRequest <= 0 {
		c.CallsPerRequest = 1
	}
	if c.Duration <= 0 && c.Requests <= 0 {
		return c, errors.New("load: set a duration or a request count")
	}
	return c, nil
}
