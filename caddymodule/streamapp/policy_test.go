package streamapp

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
)

func TestRateLimitOnStreamsByRemoteHost(t *testing.T) {
	addr := localAddress(t)
	startApp(t, &App{Listeners: []*StreamListener{{
		Listen: []string{"tcp/" + addr}, ServicesRaw: moduletest.Services("handler_test"),
		RateLimit: &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{"stream_test": moduletest.Zone("{http.request.remote.host}", 2)}},
	}}})
	read := func(c net.Conn, r *bufio.Reader) string {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	fmt.Fprint(c, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	if got := read(c, r); strings.Contains(got, "error") {
		t.Fatal(got)
	}
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	r2 := bufio.NewReader(c2)
	fmt.Fprint(c2, `[{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1},{"jsonrpc":"2.0","method":"echo","params":["a"],"id":2}]`)
	if got := read(c2, r2); strings.Count(got, "-32005") != 1 {
		t.Fatalf("the same host on another connection: %s, want the second call refused", got)
	}
}

func TestStreamKeysMustBeKnownOnStreams(t *testing.T) {
	for _, l := range []*StreamListener{
		{Listen: []string{"tcp/127.0.0.1:0"},
			RateLimit: &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{"z": moduletest.Zone("{http.auth.user.id}", 1)}}},
		{Listen: []string{"tcp/127.0.0.1:0"}, Methods: &policy.MethodFilter{Identity: &policy.MethodIdentity{
			Key: "{http.request.header.X-User}", Rules: map[string]*policy.MethodRules{"a": {Allow: []string{"*"}}}}}},
	} {
		err := l.check()
		if err == nil || !strings.Contains(err.Error(), "is not known on stream listeners") {
			t.Errorf("error %v", err)
		}
	}
	ok := &StreamListener{Listen: []string{"tcp/127.0.0.1:0"},
		RateLimit: &policy.RateLimit{Zones: map[string]*policy.RateLimitZone{"z": moduletest.Zone("{http.request.remote.host}-{env.HOME}", 1)}}}
	if err := ok.check(); err != nil {
		t.Errorf("a key of the connection's placeholders: %v", err)
	}
}

func TestParseRateLimitOnAStreamListener(t *testing.T) {
	var a App
	err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`jsonrpc {
		listen tcp/127.0.0.1:9000 {
			rate_limit {
				zone per_host {
					key {remote_host}
					events 10
					window 1s
				}
			}
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if z := a.Listeners[0].RateLimit.Zones["per_host"]; z == nil || z.Key != "{http.request.remote.host}" {
		t.Fatalf("zone %+v", z)
	}
	err = a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`jsonrpc {
		listen tcp/127.0.0.1:9000 {
			rate_limit {
				zone per_user {
					key {http.auth.user.id}
					events 10
					window 1s
				}
			}
		}
	}`))
	if err == nil || !strings.Contains(err.Error(), "rate_limit zone per_user key: {http.auth.user.id} is not known on stream listeners") {
		t.Fatalf("a key streams cannot resolve: %v", err)
	}
}
