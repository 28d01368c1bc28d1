package tests

// client_fault_test.go kills bin/caddy, and separately cuts only the
// connection, while rpcclient has 1,000 calls in flight and a live
// subscription, and checks what becomes of each.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
)

// faultCaddyfile serves the demo over WebSocket and a TCP stream.
const faultCaddyfile = `{
	admin localhost:ADMIN
	default_bind 127.0.0.1
	skip_install_trust
	auto_https disable_redirects
	http_port HTTP
	https_port HTTPS
	jsonrpc {
		listen tcp/127.0.0.1:TCP {
			service demo
		}
	}
}

https://localhost:HTTPS {
	tls internal
	jsonrpc /rpc {
		service demo
	}
}
`

// faultSite is a bin/caddy that can be killed and started again on the
// same ports.
type faultSite struct {
	caddyfile, admin, tcp, wss string
	server                     *exampleServer
}

func startFaultSite(t *testing.T) *faultSite {
	admin, https, tcp := freePort(t), freePort(t), freePort(t)
	f := &faultSite{
		admin: fmt.Sprintf("http://localhost:%d", admin),
		tcp:   fmt.Sprintf("127.0.0.1:%d", tcp),
		wss:   fmt.Sprintf("wss://localhost:%d/rpc", https),
		caddyfile: strings.NewReplacer("ADMIN", fmt.Sprint(admin), "HTTPS", fmt.Sprint(https),
			"HTTP", fmt.Sprint(freePort(t)), "TCP", fmt.Sprint(tcp)).Replace(faultCaddyfile),
	}
	f.start(t)
	return f
}

func (f *faultSite) start(t *testing.T) {
	f.server = startCaddy(t, f.caddyfile, f.admin, func() error {
		c, err := net.Dial("tcp", f.tcp)
		if err != nil {
			return err
		}
		c.Close()
		return tlsReady(strings.TrimSuffix(strings.TrimPrefix(f.wss, "wss://"), "/rpc"))
	})
}

// tlsReady completes a TLS handshake with addr (host:port): Caddy listens
// before its internal CA has issued the site's certificate.
func tlsReady(addr string) error {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr,
		&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // Caddy's internal CA; only readiness is checked
	if err == nil {
		c.Close()
	}
	return err
}

// kill ends bin/caddy at once, as a crash would.
func (f *faultSite) kill() {
	_ = f.server.cmd.Process.Kill()
	<-f.server.exited
}

// cutter forwards TCP connections to a target and can cut them all.
type cutter struct {
	l      net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
}

func startCutter(t *testing.T, target string) *cutter {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{l: l, target: target}
	t.Cleanup(func() {
		l.Close()
		c.cut()
	})
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			c.mu.Lock()
			to := c.target
			c.mu.Unlock()
			out, err := net.Dial("tcp", to)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	return c
}

// retarget sends the connections accepted from now on to target, as a
// load balancer moves clients off a node that went down.
func (c *cutter) retarget(target string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.target = target
}

// cut closes every connection forwarded so far.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, nc := range c.conns {
		nc.Close()
	}
	c.conns = nil
}

// stateWatch reports when a client reaches a state.
type stateWatch chan rpcclient.State

func (w stateWatch) record(s rpcclient.State, _ error) {
	select {
	case w <- s:
	default:
	}
}

func (w stateWatch) await(t *testing.T, want rpcclient.State) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case s := <-w:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("the client never reached %v", want)
		}
	}
}

// faultRun is one client with calls in flight and a subscription.
type faultRun struct {
	c                                     *rpcclient.Client
	states                                stateWatch
	ticks                                 chan int
	sub                                   *rpcclient.ClientSubscription
	wg                                    sync.WaitGroup
	answered, unknown, idempotent, unsent atomic.Int64
	errs                                  chan error
}

const faultCalls = 1000

func startFaultRun(t *testing.T, ctx context.Context, url string) *faultRun {
	r := &faultRun{states: make(stateWatch, 64), ticks: make(chan int, 4096), errs: make(chan error, 2*faultCalls)}
	r.c = dialOurs(t, url, rpcclient.WithBackoff(10*time.Millisecond, 200*time.Millisecond), rpcclient.WithStateFunc(r.states.record))
	var err error
	if r.sub, err = r.c.Subscribe(ctx, "demo", r.ticks, "ticks", 10); err != nil {
		t.Fatal(err)
	}
	for i := range faultCalls {
		r.wg.Go(func() {
			callCtx := ctx
			idem := i%2 == 0
			if idem {
				callCtx = rpcclient.Idempotent(ctx)
			}
			n, err := rpcclient.CallT[int](callCtx, r.c, "delay", 50)
			switch {
			case err == nil && n == 50:
				r.answered.Add(1)
				if idem {
					r.idempotent.Add(1)
				}
			case errors.Is(err, rpcclient.ErrOutcomeUnknown) && !idem:
				r.unknown.Add(1)
			default:
				r.errs <- fmt.Errorf("call %d: %d, %v", i, n, err)
			}
		})
	}
	return r
}

// callWhileDown makes calls that cannot leave yet; each must complete.
func (r *faultRun) callWhileDown(ctx context.Context, n int) {
	for i := range n {
		r.wg.Go(func() {
			if v, err := rpcclient.CallT[int](ctx, r.c, "addInt", i, 1); err != nil || v != i+1 {
				r.errs <- fmt.Errorf("call made while down: %d, %v", v, err)
				return
			}
			r.answered.Add(1)
			r.unsent.Add(1)
		})
	}
}

// check waits for every call and checks the outcomes and the
// subscription.
func (r *faultRun) check(t *testing.T) {
	t.Helper()
	r.wg.Wait()
	close(r.errs)
	for err := range r.errs {
		t.Fatal(err)
	}
	if r.idempotent.Load() != faultCalls/2 || r.answered.Load()+r.unknown.Load() != faultCalls+r.unsent.Load() {
		t.Fatalf("answered %d (idempotent %d, made while down %d), unknown %d",
			r.answered.Load(), r.idempotent.Load(), r.unsent.Load(), r.unknown.Load())
	}
	t.Logf("answered %d (idempotent %d, made while down %d), outcome unknown %d",
		r.answered.Load(), r.idempotent.Load(), r.unsent.Load(), r.unknown.Load())
	select {
	case <-r.sub.Gap():
	case <-time.After(20 * time.Second):
		t.Fatal("the subscription was not made again")
	}
	for len(r.ticks) > 0 {
		<-r.ticks
	}
	select {
	case <-r.ticks:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification after the reconnect")
	}
}

func TestOurClientSurvivesACaddyCrash(t *testing.T) {
	before := runtime.NumGoroutine()
	site := startFaultSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	runs := map[string]*faultRun{
		"wss": startFaultRun(t, ctx, site.wss),
		"tcp": startFaultRun(t, ctx, "tcp://"+site.tcp),
	}
	time.Sleep(100 * time.Millisecond)
	site.kill()
	for _, r := range runs {
		r.states.await(t, rpcclient.Reconnecting)
		r.callWhileDown(ctx, 200)
	}
	time.Sleep(100 * time.Millisecond)
	site.start(t)
	for name, r := range runs {
		t.Run(name, func(t *testing.T) {
			r.check(t)
			r.c.Close()
		})
	}
	site.server.stop(t)
	waitForGoroutines(t, before)
}

func TestOurClientSurvivesACutConnection(t *testing.T) {
	before := runtime.NumGoroutine()
	site := startFaultSite(t)
	proxy := startCutter(t, site.tcp)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := startFaultRun(t, ctx, "tcp://"+proxy.l.Addr().String())
	time.Sleep(100 * time.Millisecond)
	proxy.cut()
	r.check(t)
	r.c.Close()
	proxy.l.Close()
	proxy.cut()
	site.server.stop(t)
	waitForGoroutines(t, before)
}

// waitForGoroutines waits until no more goroutines run than before.
func waitForGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
