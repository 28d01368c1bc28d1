package streamapp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
)

// startApp provisions and starts an app in a fresh Caddy context; it is
// stopped at the end of the test.
func startApp(t *testing.T, a *App) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := a.Provision(ctx); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	if err := a.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		a.Stop()
		a.Cleanup()
	})
}

// localAddress is a free loopback TCP address.
func localAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestAppMaxConnections(t *testing.T) {
	addr := localAddress(t)
	startApp(t, &App{Listeners: []*StreamListener{{
		Listen: []string{"tcp/" + addr}, ServicesRaw: moduletest.Services("handler_test"), MaxConnections: 1,
	}}})
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	fmt.Fprint(first, `{"jsonrpc":"2.0","method":"echo","params":["a"],"id":1}`)
	r := bufio.NewReader(first)
	first.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || line != `{"jsonrpc":"2.0","result":"a","id":1}`+"\n" {
		t.Fatalf("first connection: %q, %v", line, err)
	}
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	all, _ := bufio.NewReader(second).ReadString(0)
	if all != string(tooManyConnections) {
		t.Fatalf("connection over the limit got %q", all)
	}
}

func TestAppRefusesAnAddressInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a := &App{Listeners: []*StreamListener{{Listen: []string{"tcp/" + l.Addr().String()}, ServicesRaw: moduletest.Services("handler_test")}}}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := a.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.Cleanup()
	err = a.Start()
	if err == nil {
		a.Stop()
		t.Fatal("Start on an address in use succeeded")
	}
	if !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), l.Addr().String()) {
		t.Errorf("error %q does not name the address in use", err)
	}
}

func TestAppConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		l    StreamListener
		want string
	}{
		{"no address", StreamListener{}, "no address to listen on"},
		{"bad address", StreamListener{Listen: []string{"tcp/127.0.0.1:notaport"}}, "jsonrpc listen tcp/127.0.0.1:notaport"},
		{"udp", StreamListener{Listen: []string{"udp/127.0.0.1:9"}}, "streams need tcp or unix"},
		{"tls on a socket", StreamListener{Listen: []string{"unix//tmp/x.sock"}, TLS: &StreamTLS{Issuer: "internal"}}, "tls is for TCP listeners"},
		{"framing", StreamListener{Listen: []string{"127.0.0.1:9"}, Framing: "lines"}, "lines is not values or content_length"},
		{"slow consumer", StreamListener{Listen: []string{"127.0.0.1:9"}, SlowConsumer: "wait"}, `slow_consumer: "wait"`},
		{"negative max_connections", StreamListener{Listen: []string{"127.0.0.1:9"}, MaxConnections: -1}, "max_connections: must not be negative"},
		{"negative max_message", StreamListener{Listen: []string{"127.0.0.1:9"}, MaxMessage: -1}, "max_message: must not be negative"},
		{"cert without key", StreamListener{Listen: []string{"127.0.0.1:9"}, TLS: &StreamTLS{CertFile: "c.pem"}}, "cert_file and key_file go together"},
		{"bad issuer", StreamListener{Listen: []string{"127.0.0.1:9"}, TLS: &StreamTLS{Issuer: "zerossl"}}, `issuer "zerossl"`},
		{"duplicate method", StreamListener{Listen: []string{"127.0.0.1:9"}, ServicesRaw: moduletest.Services("echo_test", "echo_test")}, "service echo_test is mounted twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.l
			a := &App{Listeners: []*StreamListener{&l}}
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			err := a.Provision(ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Provision: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestAppCaddyfile(t *testing.T) {
	input := `jsonrpc {
		shutdown_grace 3s
		listen tcp/127.0.0.1:9000 127.0.0.1:9001 {
			service handler_test
			max_message 1MiB
			max_batch 10
			methods {
				deny echo
			}
			framing content_length
			tls internal
			max_connections 5
			idle_timeout 1m
			max_in_flight 2
			send_queue 8
			slow_consumer disconnect
			max_subscriptions 3
			openrpc {
				title Streams
			}
		}
		listen unix//run/x.sock|0600 {
			service handler_test
			openrpc off
		}
	}`
	var a App
	if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err != nil {
		t.Fatal(err)
	}
	if len(a.Listeners) != 2 || time.Duration(a.ShutdownGrace) != 3*time.Second {
		t.Fatalf("app %+v", a)
	}
	l := a.Listeners[0]
	if strings.Join(l.Listen, " ") != "tcp/127.0.0.1:9000 127.0.0.1:9001" || len(l.ServicesRaw) != 1 ||
		l.MaxMessage != 1<<20 || l.MaxBatch != 10 || l.Methods == nil || l.Methods.Deny[0] != "echo" ||
		l.Framing != "content_length" || l.TLS == nil || l.TLS.Issuer != "internal" || l.MaxConnections != 5 ||
		time.Duration(l.IdleTimeout) != time.Minute || l.MaxInFlight != 2 || l.SendQueue != 8 ||
		l.SlowConsumer != "disconnect" || l.MaxSubscriptions != 3 || l.OpenRPC == nil || l.OpenRPC.Title != "Streams" {
		t.Errorf("listener %+v", l)
	}
	if a.Listeners[1].Listen[0] != "unix//run/x.sock|0600" || a.Listeners[1].OpenRPC == nil || !a.Listeners[1].OpenRPC.Disabled {
		t.Errorf("second listener %+v", a.Listeners[1])
	}

	for _, tt := range []struct{ input, want string }{
		{"jsonrpc {\nlisten\n}", "want at least one address"},
		{"jsonrpc {\nlisten 127.0.0.1:9 {\nframing\n}\n}", "framing: want values or content_length"},
		{"jsonrpc {\nlisten 127.0.0.1:9 {\ntls acme\n}\n}", `"acme" is not internal`},
		{"jsonrpc {\nlisten 127.0.0.1:9 {\nmax_batch 1\nmax_batch 2\n}\n}", "specified twice"},
		{"jsonrpc {\nlisten 127.0.0.1:9 {\ncolour blue\n}\n}", `unrecognized listen option "colour"`},
		{"jsonrpc {\nport 9\n}", `unrecognized jsonrpc global option "port"`},
		{"jsonrpc {\nlisten 127.0.0.1:9 {\nframing lines\n}\n}", "lines is not values or content_length"},
	} {
		var a App
		err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.input, err, tt.want)
		}
	}
}
