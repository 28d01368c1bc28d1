package tests

// helpers_test.go holds what every integration test uses: free ports, HTTP
// clients for each protocol, and a JSON-RPC POST.

import (
	"crypto/tls"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// requestTimeout bounds every HTTP request the tests make.
const requestTimeout = 10 * time.Second

// freePort returns a loopback TCP port that is free now and that no other
// test of this process was given.
func freePort(t testing.TB) int {
	t.Helper()
	freePortsMu.Lock()
	defer freePortsMu.Unlock()
	for range 1000 {
		p := freePortsFrom + rand.IntN(freePortsTo-freePortsFrom)
		if freePortsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		l.Close()
		freePortsGiven[p] = true
		return p
	}
	t.Fatal("no free port below the ephemeral range")
	return 0
}

// The ports freePort gives come from below the kernel's ephemeral range
// (Linux's default begins at 32768), which no outgoing connection takes:
// in that range, a connection's source port can take a server's port
// between freePort and the server's listen, or while the server is down
// (a NATS cluster's peers keep dialing it).
const (
	freePortsFrom = 20000
	freePortsTo   = 32000
)

var (
	freePortsMu    sync.Mutex
	freePortsGiven = map[int]bool{}
)

// newClient returns an HTTPS client speaking only HTTP/1.1 (h2 false) or
// only HTTP/2 (h2 true), trusting any certificate: Caddy's local CA is not
// installed anywhere.
func newClient(h2, keepAlive bool) *http.Client {
	protocols := new(http.Protocols)
	if h2 {
		protocols.SetHTTP2(true)
	} else {
		protocols.SetHTTP1(true)
	}
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // Caddy's internal CA
		Protocols:           protocols,
		DisableKeepAlives:   !keepAlive,
		MaxIdleConnsPerHost: 64,
	}
	return &http.Client{Transport: transport, Timeout: requestTimeout}
}

// protocolClients are the clients every HTTP test runs with.
func protocolClients() []struct {
	name   string
	client *http.Client
	major  int
} {
	return []struct {
		name   string
		client *http.Client
		major  int
	}{
		{"HTTP/1.1", newClient(false, true), 1},
		{"HTTP/2", newClient(true, true), 2},
	}
}

// response is what the tests look at in an HTTP response.
type response struct {
	status int
	header http.Header
	body   string
	major  int
}

// do sends an HTTP request and reads the whole response.
func do(t testing.TB, c *http.Client, method, url, contentType string, body io.Reader,
	header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b), major: res.ProtoMajor}
}

// rpc POSTs a JSON-RPC document as application/json.
func rpc(t testing.TB, c *http.Client, url, doc string) response {
	t.Helper()
	return do(t, c, http.MethodPost, url, "application/json", strings.NewReader(doc), nil)
}

// wantAnswer fails the test unless res is a 200 JSON answer equal to want.
func wantAnswer(t testing.TB, res response, want string) {
	t.Helper()
	if res.status != http.StatusOK {
		t.Errorf("status %d, want 200 (body %q)", res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if res.body != want {
		t.Errorf("answer %s\n want %s", res.body, want)
	}
}
