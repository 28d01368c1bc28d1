package childserve

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/grpcpeer"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// serve runs the stream server impl in this process and returns its
// network and address.
func serve(t *testing.T, impl string) (string, string) {
	network, addr, _ := strings.Cut(inTest(t, impl), " ")
	return network, addr
}

// workload returns the five requests as impl names them, and their answers.
func workload(impl string) ([][]byte, msgload.Expect) {
	if impl == "geth" {
		return msgload.Workload(inprocess.GethRename)
	}
	return msgload.Workload(nil)
}

func TestEveryServerAnswersPipelinedCalls(t *testing.T) {
	for _, impl := range []string{"ours", "geth"} {
		t.Run(impl, func(t *testing.T) {
			reqs, expect := workload(impl)
			rates, err := pipeline.Run(context.Background(), pipeline.Config{Conns: 2, Depth: 16, Requests: reqs,
				Expect: expect.Prepare(), Windows: pipeline.Windows{Warmup: 10 * time.Millisecond,
					Length: 20 * time.Millisecond, Count: 2}}, msgload.Dialer(inTest(t, impl)))
			if err != nil {
				t.Fatal(err)
			}
			if len(rates) != 2 || rates[0] <= 0 || rates[1] <= 0 {
				t.Fatalf("rates %v", rates)
			}
		})
	}
}

// chat is the demo's chat with 20 subscribers at u.
func chat(u string) msgload.BroadcastConfig {
	return msgload.BroadcastConfig{SubscriberURLs: []string{u, u}, PublisherURLs: []string{u}, Subscribers: 20,
		Subscribe:    []byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`),
		Notification: "demo_subscription", Timeout: 10 * time.Second,
		Publish: func(id int, text string) []byte {
			return []byte(`{"jsonrpc":"2.0","method":"demo_publish","params":["chat",` + strconv.Quote(text) + `],"id":` + strconv.Itoa(id) + `}`)
		},
	}
}

func TestEveryServerBroadcastsToEverySubscriber(t *testing.T) {
	for _, impl := range []string{"ours", "geth", "fanout", "fanout_parallel"} {
		t.Run(impl, func(t *testing.T) {
			b, err := msgload.OpenBroadcast(context.Background(), chat(inTest(t, impl)))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			times, err := msgload.Times(context.Background(), b, 1, 3)
			if err != nil || len(times) != 3 || times[0] <= 0 {
				t.Fatalf("times %v, %v", times, err)
			}
		})
	}
}

func TestOursAndTheFanOutDeliverAStreamToEverySubscriber(t *testing.T) {
	for _, impl := range []string{"ours", "fanout", "fanout_parallel"} {
		t.Run(impl, func(t *testing.T) {
			session := chat(inTest(t, impl))
			session.PublisherURLs = append(session.PublisherURLs, session.PublisherURLs...)
			res, err := msgload.Delivery(context.Background(), msgload.DeliveryConfig{BroadcastConfig: session,
				LatencyWarmup: 1, LatencyRuns: 2, Stream: pipeline.Windows{Warmup: 20 * time.Millisecond, Length: 100 * time.Millisecond, Count: 2},
				InFlight: 4, Lag: 16,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Latency) != 2 || res.Latency[0] <= 0 || len(res.Rates) != 2 || res.Rates[0] <= 0 {
				t.Fatalf("%+v", res)
			}
		})
	}
}

func TestEveryServerHoldsIdleConnections(t *testing.T) {
	for _, impl := range []string{"ours", "geth"} {
		t.Run(impl, func(t *testing.T) {
			reqs, expect := workload(impl)
			url := inTest(t, impl)
			conns, err := pipeline.Open(context.Background(), 30, 8, func(ctx context.Context, _ int) (*msgload.Conn, error) {
				c, err := msgload.Dial(ctx, url)
				if err == nil {
					err = pipeline.Call(c, reqs[0], expect)
				}
				return c, err
			})
			if err != nil || len(conns) != 30 {
				t.Fatalf("%d connections, %v", len(conns), err)
			}
			pipeline.CloseAll(conns)
		})
	}
}

// serveOurs serves the demo over streamconn on a loopback port, as the
// jsonrpc app does, until the test ends.
func serveOurs(t *testing.T) string {
	t.Helper()
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go streamconn.New(c, nil, streamconn.Options{}).Serve(ctx, s, rpccore.PeerConfig{})
		}
	}()
	return l.Addr().String()
}

// short is a brief timing.
var short = pipeline.Windows{Warmup: 10 * time.Millisecond, Length: 50 * time.Millisecond, Count: 2}

// run runs a pipelined load of reqs over network and addr.
func run(network, addr string, conns, depth int, reqs [][]byte, expect msgload.Expect) ([]float64, error) {
	return pipeline.Run(context.Background(), pipeline.Config{Conns: conns, Depth: depth, Requests: reqs,
		Expect: expect.Prepare(), Windows: short}, msgload.StreamDialer(network, addr))
}

func TestEveryStreamServerAnswersPipelinedCalls(t *testing.T) {
	gethNet, gethAddr := serve(t, "ipc")
	bareNet, bareAddr := serve(t, "bare")
	for _, c := range []struct{ name, network, addr string }{
		{"ours", "tcp", serveOurs(t)}, {"geth", gethNet, gethAddr}, {"bare", bareNet, bareAddr}} {
		t.Run(c.name, func(t *testing.T) {
			reqs, expect := workload(c.name)
			rates, err := run(c.network, c.addr, 2, 16, reqs, expect)
			if err != nil || len(rates) != 2 || rates[0] <= 0 {
				t.Fatalf("%v %v", rates, err)
			}
		})
	}
	if gethNet != "unix" {
		t.Errorf("go-ethereum listens on %s, want its IPC socket", gethNet)
	}
}

func TestDelayZeroIsAnsweredByOursAndGeth(t *testing.T) {
	gethNet, gethAddr := serve(t, "ipc")
	expect := msgload.Expect{1: "0", 2: "0"}
	for _, c := range []struct{ network, addr, method string }{
		{"tcp", serveOurs(t), "delay"}, {gethNet, gethAddr, "bench_sleep"}} {
		reqs := [][]byte{[]byte(`{"jsonrpc":"2.0","method":"` + c.method + `","params":[0],"id":1}`),
			[]byte(`{"jsonrpc":"2.0","method":"` + c.method + `","params":[0],"id":2}`)}
		if _, err := run(c.network, c.addr, 1, 8, reqs, expect); err != nil {
			t.Errorf("%s: %v", c.method, err)
		}
	}
}

func TestGRPCAnswersUnaryAndStreamedCalls(t *testing.T) {
	_, addr := serve(t, "grpc")
	for _, stream := range []bool{false, true} {
		rates, err := grpcpeer.Run(context.Background(), grpcpeer.Config{Addr: addr, Conns: 2, Depth: 8, Stream: stream, Windows: short})
		if err != nil || len(rates) != 2 || rates[0] <= 0 {
			t.Fatalf("stream %v: %v %v", stream, rates, err)
		}
	}
	if _, err := grpcpeer.Run(context.Background(), grpcpeer.Config{Addr: "10.0.0.1:1", Conns: 1, Depth: 1, Windows: short}); err == nil {
		t.Error("a run off this machine started")
	}
}

func TestFloodCountsEveryItemOfOursAndTheBareServer(t *testing.T) {
	_, bare := serve(t, "bare")
	for _, addr := range []string{serveOurs(t), bare} {
		rates, err := msgload.Flood(context.Background(), "tcp", addr, msgload.FloodConfig{
			Subscribe:    []byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["flood",1000000000],"id":1}`),
			Notification: "demo_subscription", Windows: short})
		if err != nil || len(rates) != 2 || rates[0] <= 0 {
			t.Fatalf("%s: %v %v", addr, rates, err)
		}
	}
}

func TestNATSListensOnLoopbackWithJetStream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "nats", pw) }()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(url), "nats://")
	if !ok || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("URL %q", url)
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	info, err := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if err != nil || !strings.HasPrefix(info, "INFO ") || !strings.Contains(info, `"jetstream":true`) {
		t.Fatalf("INFO %q, %v", info, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestServeRefusesAnUnknownServer(t *testing.T) {
	if err := Serve(context.Background(), "nginx", io.Discard); err == nil {
		t.Fatal("no error")
	}
}

// inTest runs impl in this process until the test ends, and returns the
// line it printed: where it serves.
func inTest(t testing.TB, impl string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, impl, w) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, r)
	return strings.TrimSpace(line)
}
