package streamserve

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/grpcpeer"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/streamload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/servetest"
)

// serve runs impl in this process and returns its network and address.
func serve(t *testing.T, impl string) (string, string) {
	t.Helper()
	line := servetest.Serve(t, func(ctx context.Context, w io.Writer) error { return Serve(ctx, impl, w) })
	network, addr, _ := strings.Cut(line, " ")
	return network, addr
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

// workload returns the five requests, named for go-ethereum when geth.
func workload(geth bool) ([][]byte, wsload.Expect) {
	if geth {
		return wsload.Workload(inprocess.GethRename)
	}
	return wsload.Workload(nil)
}

// run runs a pipelined load of reqs over network and addr.
func run(network, addr string, conns, depth int, reqs [][]byte, expect wsload.Expect) ([]float64, error) {
	return pipeline.Run(context.Background(), pipeline.Config{Conns: conns, Depth: depth, Requests: reqs,
		Expect: expect.Prepare(), Windows: short}, streamload.Dialer(network, addr))
}

func TestEveryServerAnswersPipelinedCalls(t *testing.T) {
	gethNet, gethAddr := serve(t, "geth")
	bareNet, bareAddr := serve(t, "bare")
	for _, c := range []struct {
		name, network, addr string
		geth                bool
	}{{"ours", "tcp", serveOurs(t), false}, {"geth", gethNet, gethAddr, true}, {"bare", bareNet, bareAddr, false}} {
		t.Run(c.name, func(t *testing.T) {
			reqs, expect := workload(c.geth)
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
	gethNet, gethAddr := serve(t, "geth")
	expect := wsload.Expect{1: "0", 2: "0"}
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
		rates, err := streamload.Flood(context.Background(), "tcp", addr, streamload.FloodConfig{
			Subscribe:    []byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["flood",1000000000],"id":1}`),
			Notification: "demo_subscription", Windows: short})
		if err != nil || len(rates) != 2 || rates[0] <= 0 {
			t.Fatalf("%s: %v %v", addr, rates, err)
		}
	}
}

func TestServeRefusesAnUnknownServer(t *testing.T) {
	if err := Serve(context.Background(), "nginx", io.Discard); err == nil {
		t.Fatal("no error")
	}
}
