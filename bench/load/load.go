// Package load is a closed-loop HTTP load generator for loopback servers:
// a fixed number of keep-alive connections (HTTP/1.1, or HTTP/2 over TLS),
// each its own http.Transport sending one POST at a time for a fixed
// duration or request count, checking every answer and recording its
// latency. The connections can outlive a run (Open), so that runs of
// several targets on one server take turns on the same warm connections.
//
// It only ever connects to loopback addresses: Run refuses a URL whose host
// is not a loopback IP or "localhost", and every dial is checked again
// after name resolution.
package load

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// Config describes one load run.
type Config struct {
	URL      string        // the target; its host must be loopback
	Body     []byte        // sent as the body of every POST, as application/json
	HTTP2    bool          // HTTP/2, over TLS; otherwise HTTP/1.1
	Conns    int           // the connections, each with one request in flight (default 1)
	Duration time.Duration // bounds the timed run; zero means until Requests are sent
	Requests int64         // bounds the timed run by count; zero means until Duration
	Warmup   time.Duration // spent sending requests before the clock starts
	Timeout  time.Duration // bounds each request (default 10s)
	// ExpectBody, when not nil, is the exact body every answer must have;
	// every answer must have status 200.
	ExpectBody        []byte
	ExpectContentType string // when set, the Content-Type every answer must have
	// CallsPerRequest is the number of JSON-RPC calls a request holds (1,
	// or the batch size), used to report calls per second.
	CallsPerRequest int
	// Clients, when set, are the connections to send on (standing for Conns
	// and HTTP2), left open; otherwise the run opens its own.
	Clients *Clients
}

// Clients are keep-alive connections, each the one of its own
// http.Client, that runs of several targets on one server can share.
type Clients struct {
	http2   bool
	clients []*http.Client
}

// Open returns cfg.Conns clients (default 1) for cfg.URL's scheme,
// speaking HTTP/2 when cfg.HTTP2 is set, otherwise HTTP/1.1.
func Open(cfg Config) (*Clients, error) {
	if err := CheckURL(cfg.URL, "http", "https"); err != nil {
		return nil, err
	}
	cfg.Timeout = cmp.Or(cfg.Timeout, 10*time.Second)
	c := &Clients{http2: cfg.HTTP2}
	for range max(cfg.Conns, 1) {
		c.clients = append(c.clients, newClient(cfg))
	}
	return c, nil
}

// Close closes the clients' connections.
func (c *Clients) Close() {
	for _, cl := range c.clients {
		cl.CloseIdleConnections()
	}
}

// Result is what a run measured.
type Result struct {
	Requests    int64   // the requests answered, all of them correctly
	CallsPerSec float64 // the requests answered per second of the timed phase, times CallsPerRequest
	P99         float64 // the 99th percentile (nearest rank) of the latencies, in milliseconds
}

// Run sends load as cfg describes and reports what it measured, verifying
// no TLS certificate (the servers under test use a local CA). A request
// that fails or is answered wrongly, in the warm-up too, ends the run with
// its error.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg.CallsPerRequest = max(cfg.CallsPerRequest, 1)
	cfg.Timeout = cmp.Or(cfg.Timeout, 10*time.Second)
	if cfg.Duration <= 0 && cfg.Requests <= 0 {
		return Result{}, errors.New("load: set a duration or a request count")
	}
	if err := CheckURL(cfg.URL, "http", "https"); err != nil {
		return Result{}, err
	}
	clients := cfg.Clients
	if clients == nil {
		clients, _ = Open(cfg) // its URL is checked
		defer clients.Close()
	}
	cfg.HTTP2 = clients.http2
	workers := make([]*worker, len(clients.clients))
	for i, c := range clients.clients {
		workers[i] = &worker{cfg: &cfg, client: c}
	}
	// phase runs the workers until more reports false or a request fails.
	phase := func(more func() bool, record bool) error {
		g, ctx := errgroup.WithContext(ctx)
		for _, w := range workers {
			g.Go(func() error {
				for ctx.Err() == nil && more() {
					took, err := w.once(ctx)
					if err != nil {
						return err
					}
					if record {
						w.lat = append(w.lat, took)
					}
				}
				return nil
			})
		}
		return g.Wait()
	}
	warm := time.Now().Add(cfg.Warmup)
	if err := phase(func() bool { return time.Now().Before(warm) }, false); err != nil {
		return Result{}, err
	}
	start := time.Now()
	end := start.Add(cfg.Duration)
	var sent atomic.Int64
	err := phase(func() bool {
		return (cfg.Duration <= 0 || time.Now().Before(end)) && (cfg.Requests <= 0 || sent.Add(1) <= cfg.Requests)
	}, true)
	elapsed := time.Since(start)
	if err != nil {
		return Result{}, err
	}
	var lat []time.Duration
	for _, w := range workers {
		lat = append(lat, w.lat...)
	}
	r := Result{Requests: int64(len(lat))}
	r.CallsPerSec = float64(r.Requests) / elapsed.Seconds() * float64(cfg.CallsPerRequest)
	if len(lat) > 0 {
		slices.Sort(lat)
		r.P99 = float64(lat[max(0, min(int(0.99*float64(len(lat))+0.999999)-1, len(lat)-1))]) / float64(time.Millisecond)
	}
	return r, nil
}

// CheckURL fails unless raw is a URL of one of schemes whose host
// CheckLoopbackHost accepts.
func CheckURL(raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err == nil && !slices.Contains(schemes, u.Scheme) {
		err = fmt.Errorf("load: scheme %q: want %s", u.Scheme, strings.Join(schemes, " or "))
	}
	if err != nil {
		return err
	}
	return CheckLoopbackHost(u.Hostname())
}

// newClient returns a client that holds at most one connection.
func newClient(cfg Config) *http.Client {
	d := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second, Control: LoopbackOnly}
	var p http.Protocols
	p.SetHTTP1(!cfg.HTTP2)
	p.SetHTTP2(cfg.HTTP2)
	return &http.Client{Timeout: cfg.Timeout, Transport: &http.Transport{
		DialContext:         d.DialContext,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, // the servers under test use a local CA
		TLSHandshakeTimeout: cfg.Timeout,
		Protocols:           &p,
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

type worker struct {
	cfg    *Config
	client *http.Client
	buf    bytes.Buffer
	lat    []time.Duration
}

// once sends one request and checks the answer, returning its latency.
func (w *worker) once(ctx context.Context) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.cfg.URL, bytes.NewReader(w.cfg.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, err
	}
	w.buf.Reset()
	_, err = w.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	switch ct := w.cfg.ExpectContentType; {
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("status %d, want 200: %.200s", resp.StatusCode, w.buf.Bytes())
	case (resp.ProtoMajor == 2) != w.cfg.HTTP2:
		return 0, fmt.Errorf("answered over %s with HTTP2 %v", resp.Proto, w.cfg.HTTP2)
	case ct != "" && resp.Header.Get("Content-Type") != ct:
		return 0, fmt.Errorf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), ct)
	case w.cfg.ExpectBody != nil && !bytes.Equal(w.buf.Bytes(), w.cfg.ExpectBody):
		return 0, fmt.Errorf("body %.200q, want %.200q", w.buf.Bytes(), w.cfg.ExpectBody)
	}
	return took, nil
}

// ErrNotLoopback is returned for a target that is not on this machine.
var ErrNotLoopback = errors.New("load: only loopback targets are allowed")

// CheckLoopbackHost fails unless host is a loopback IP address or
// "localhost".
func CheckLoopbackHost(host string) error {
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w: host %q", ErrNotLoopback, host)
	}
	return nil
}

// CheckLoopbackAddr fails unless addr is a host and port whose host
// CheckLoopbackHost accepts.
func CheckLoopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	return CheckLoopbackHost(host)
}

// LoopbackOnly is a net.Dialer Control function that refuses any resolved
// address that is not a loopback IP.
func LoopbackOnly(_, address string, _ syscall.RawConn) error { return CheckLoopbackAddr(address) }
