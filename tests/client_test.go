package tests

// client_test.go drives package rpcclient against bin/caddy (HTTPS,
// WebSocket, TCP, TLS and unix streams), against the in-process Caddy (calls
// from the server to the client), and against go-ethereum's server in this
// test binary (HTTP, WebSocket, IPC).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// dialOurs dials url with rpcclient, trusting Caddy's internal CA.
func dialOurs(t *testing.T, url string, opts ...rpcclient.Option) *rpcclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	opts = append([]rpcclient.Option{rpcclient.WithTLSConfig(insecureTLS)}, opts...)
	c, err := rpcclient.Dial(ctx, url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// checkOurClient makes calls, named and positional, a batch, errors and a
// notification through c, and a subscription where the transport pushes.
func checkOurClient(t *testing.T, c *rpcclient.Client, push bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	var diff float64
	if err := c.Call(ctx, &diff, "subtract", 42, 23); err != nil || diff != 19 {
		t.Fatalf("subtract: %v, %v", diff, err)
	}
	if d, err := rpcclient.CallT[float64](ctx, c, "subtract", rpcclient.Named{"subtrahend": 23, "minuend": 42}); err != nil || d != 19 {
		t.Fatalf("subtract by name: %v, %v", d, err)
	}
	if s, err := rpcclient.CallT[string](ctx, c, "StringMe", "héllo \"world\""); err != nil || s != "héllo \"world\"" {
		t.Fatalf("StringMe: %q, %v", s, err)
	}
	var rpcErr *rpccore.Error
	if err := c.Call(ctx, nil, "no_such_method"); !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeMethodNotFound {
		t.Fatalf("missing method: %v", err)
	}
	if err := c.Call(ctx, nil, "subtract", "x", 1); !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeInvalidParams {
		t.Fatalf("bad param: %v", err)
	}
	if err := c.Notify(ctx, "notify_hello", 7); err != nil {
		t.Fatalf("notify: %v", err)
	}
	var sum float64
	var data []any
	batch := []rpcclient.BatchElem{
		{Method: "sum", Args: []any{1, 2, 4}, Result: &sum},
		{Method: "get_data", Result: &data},
		{Method: "no_such_method"},
	}
	if err := c.BatchCall(ctx, batch); err != nil || sum != 7 || fmt.Sprint(data) != "[hello 5]" ||
		batch[0].Error != nil || !errors.As(batch[2].Error, &rpcErr) || rpcErr.Code != rpccore.CodeMethodNotFound {
		t.Fatalf("batch: %v %v %v %v", err, sum, data, batch)
	}
	if !push {
		return
	}
	ticks := make(chan int, 8)
	sub, err := c.Subscribe(ctx, "demo", ticks, "ticks", 5)
	if err != nil {
		t.Fatal(err)
	}
	for want := 1; want <= 3; want++ {
		select {
		case got := <-ticks:
			if got != want {
				t.Fatalf("tick %d, want %d", got, want)
			}
		case <-ctx.Done():
			t.Fatal("no ticks")
		}
	}
	sub.Unsubscribe()
}

func TestOurClientAgainstCaddy(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	site := startExample(t)
	streams := startStreams(t)
	for name, tt := range map[string]struct {
		url  string
		push bool
	}{
		"https": {site.base + "/rpc", false},
		"wss":   {strings.Replace(site.base, "https://", "wss://", 1) + "/rpc", true},
		"tcp":   {"tcp://" + streams.tcp, true},
		"tls":   {"tls://" + streams.tlsAddr, true},
		"unix":  {streams.socket, true},
	} {
		t.Run(name, func(t *testing.T) {
			checkOurClient(t, dialOurs(t, tt.url), tt.push)
		})
	}
	t.Run("https batch window", func(t *testing.T) {
		checkOurClient(t, dialOurs(t, site.base+"/rpc", rpcclient.WithHTTPBatchWindow(2*time.Millisecond)), false)
	})
}

func TestServerCallsOurClient(t *testing.T) {
	base := startInProcess(t)
	notes := make(chan string, 1)
	c := dialOurs(t, strings.Replace(base, "https://", "wss://", 1)+"/rpc", rpcclient.WithMethods(rpccore.Methods{
		"client_answer": rpccore.Func1(func(_ context.Context, q string) (string, error) { return "42 to " + q, nil }, "q"),
		"client_note": rpccore.Proc1(func(_ context.Context, note string) error {
			notes <- note
			return nil
		}, "note"),
	}))
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	got, err := rpcclient.CallT[string](ctx, c, "ask", "life")
	if err != nil || got != "client said 42 to life" {
		t.Fatalf("ask: %q, %v", got, err)
	}
	if n := <-notes; n != "asked life" {
		t.Fatalf("note %q", n)
	}
}

// gethCalc is a go-ethereum service: calc_add, calc_fail and the
// calc_subscribe("ticks", n) subscription.
type gethCalc struct{}

// gethError is an error with a JSON-RPC code and data, in go-ethereum's
// terms.
type gethError struct{}

func (gethError) Error() string          { return "failed on purpose" }
func (gethError) ErrorCode() int         { return 4711 }
func (gethError) ErrorData() interface{} { return map[string]int{"n": 1} }

func (gethCalc) Add(a, b float64) float64 { return a + b }
func (gethCalc) Fail() error              { return gethError{} }

func (gethCalc) Ticks(ctx context.Context, n int) (*gethrpc.Subscription, error) {
	notifier, ok := gethrpc.NotifierFromContext(ctx)
	if !ok {
		return nil, gethrpc.ErrNotificationsUnsupported
	}
	sub := notifier.CreateSubscription()
	go func() {
		for i := 1; i <= n; i++ {
			if err := notifier.Notify(sub.ID, i); err != nil {
				return
			}
		}
	}()
	return sub, nil
}

func TestOurClientAgainstGethServer(t *testing.T) {
	srv := gethrpc.NewServer()
	if err := srv.RegisterName("calc", gethCalc{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	httpSrv := httptest.NewServer(srv)
	t.Cleanup(httpSrv.Close)
	wsSrv := httptest.NewServer(srv.WebsocketHandler([]string{"*"}))
	t.Cleanup(wsSrv.Close)
	socket := filepath.Join(t.TempDir(), "geth.ipc")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() { _ = srv.ServeListener(l) }()
	for name, tt := range map[string]struct {
		url  string
		push bool
	}{
		"http": {httpSrv.URL, false},
		"ws":   {strings.Replace(wsSrv.URL, "http://", "ws://", 1), true},
		"ipc":  {socket, true},
	} {
		t.Run(name, func(t *testing.T) {
			c := dialOurs(t, tt.url)
			ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
			defer cancel()
			if v, err := rpcclient.CallT[float64](ctx, c, "calc_add", 1, 2.5); err != nil || v != 3.5 {
				t.Fatalf("add: %v, %v", v, err)
			}
			var rpcErr *rpccore.Error
			// go-ethereum's error interfaces hold for rpccore's errors.
			var gethErr interface {
				gethrpc.Error
				gethrpc.DataError
			}
			if err := c.CallContext(ctx, nil, "calc_fail"); !errors.As(err, &gethErr) || gethErr.ErrorCode() != 4711 {
				t.Fatalf("fail through go-ethereum's interface: %v", err)
			}
			if err := c.Call(ctx, nil, "calc_fail"); !errors.As(err, &rpcErr) || rpcErr.Code != 4711 ||
				fmt.Sprintf("%s", rpcErr.Data) != `{"n":1}` {
				t.Fatalf("fail: %#v", err)
			}
			if err := c.Call(ctx, nil, "calc_nope"); !errors.As(err, &rpcErr) || rpcErr.Code != rpccore.CodeMethodNotFound {
				t.Fatalf("missing method: %v", err)
			}
			var a, b float64
			batch := []rpcclient.BatchElem{
				{Method: "calc_add", Args: []any{1, 2}, Result: &a},
				{Method: "calc_fail"},
				{Method: "calc_add", Args: []any{3, 4}, Result: &b},
			}
			if err := c.BatchCall(ctx, batch); err != nil || a != 3 || b != 7 || !errors.As(batch[1].Error, &rpcErr) {
				t.Fatalf("batch: %v %v %v %v", err, a, b, batch)
			}
			if err := c.Notify(ctx, "calc_add", 1, 2); err != nil {
				t.Fatalf("notify: %v", err)
			}
			if !tt.push {
				return
			}
			ticks := make(chan int, 8)
			sub, err := c.Subscribe(ctx, "calc", ticks, "ticks", 3)
			if err != nil {
				t.Fatal(err)
			}
			for want := 1; want <= 3; want++ {
				if got := <-ticks; got != want {
					t.Fatalf("tick %d, want %d", got, want)
				}
			}
			sub.Unsubscribe()
		})
	}
}

func TestReadmeClientProgramRuns(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	site := startExample(t)
	bin := filepath.Join(t.TempDir(), "callfromgo")
	if out, err := exec.Command("go", "build", "-o", bin, "./callfromgo").CombinedOutput(); err != nil {
		t.Fatalf("building the README's program: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, strings.Replace(site.base, "https://", "wss://", 1)+"/rpc").CombinedOutput()
	if err != nil {
		t.Fatalf("the README's program: %v\n%s", err, out)
	}
	for _, want := range []string{"19 19 <nil>", "-32601 Method not found", "tick 1", "tick 5"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("its output lacks %q:\n%s", want, out)
		}
	}
}
