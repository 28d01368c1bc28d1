package wsserve

import (
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/servetest"
)

// serve runs impl in this process and returns its URL.
func serve(t *testing.T, impl string) string {
	t.Helper()
	return servetest.Serve(t, func(ctx context.Context, w io.Writer) error { return Serve(ctx, impl, w) })
}

// workload returns the five requests as impl names them, and their answers.
func workload(impl string) ([][]byte, wsload.Expect) {
	var rename func(string) string
	if impl == "geth" {
		rename = inprocess.GethRename
	}
	expect := wsload.Expect{}
	for i, c := range inprocess.Workload {
		expect[int64(i+1)] = c.Result
	}
	return inprocess.Requests(rename), expect
}

func TestEveryServerAnswersPipelinedCalls(t *testing.T) {
	for _, impl := range []string{"ours", "geth"} {
		t.Run(impl, func(t *testing.T) {
			reqs, expect := workload(impl)
			rates, err := wsload.Pipeline(context.Background(), wsload.PipelineConfig{
				URL: serve(t, impl), Conns: 2, Depth: 16, Requests: reqs, Expect: expect,
				Warmup: 10 * time.Millisecond, Window: 20 * time.Millisecond, Windows: 2,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(rates) != 2 || rates[0] <= 0 || rates[1] <= 0 {
				t.Fatalf("rates %v", rates)
			}
		})
	}
}

func TestEveryServerBroadcastsToEverySubscriber(t *testing.T) {
	for _, impl := range Impls {
		t.Run(impl, func(t *testing.T) {
			times, err := wsload.Broadcast(context.Background(), wsload.BroadcastConfig{
				URL: serve(t, impl), Subscribers: 20, Warmup: 1, Runs: 3, Timeout: 10 * time.Second,
				Subscribe:    []byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`),
				Notification: "demo_subscription",
				Publish: func(id int, text string) []byte {
					return []byte(`{"jsonrpc":"2.0","method":"demo_publish","params":["chat",` + strconv.Quote(text) + `],"id":` + strconv.Itoa(id) + `}`)
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(times) != 3 || times[0] <= 0 {
				t.Fatalf("times %v", times)
			}
		})
	}
}

func TestOursAndTheFanOutDeliverAStreamToEverySubscriber(t *testing.T) {
	for _, impl := range []string{"ours", "fanout", "fanout_parallel"} {
		t.Run(impl, func(t *testing.T) {
			u := serve(t, impl)
			res, err := wsload.Delivery(context.Background(), wsload.DeliveryConfig{
				SubscriberURLs: []string{u, u}, PublisherURLs: []string{u, u}, Subscribers: 20,
				Subscribe:    []byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`),
				Notification: "demo_subscription",
				Publish: func(id int, text string) []byte {
					return []byte(`{"jsonrpc":"2.0","method":"demo_publish","params":["chat",` + strconv.Quote(text) + `],"id":` + strconv.Itoa(id) + `}`)
				},
				LatencyWarmup: 1, LatencyRuns: 2, Warmup: 20 * time.Millisecond, Window: 30 * time.Millisecond, Windows: 2,
				InFlight: 4, Lag: 16, Timeout: 10 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Latency) != 2 || res.Latency[0] <= 0 || len(res.Rates) != 2 || res.Rates[0] <= 0 || res.Published < 3 {
				t.Fatalf("%+v", res)
			}
		})
	}
}

func TestEveryServerHoldsIdleConnections(t *testing.T) {
	for _, impl := range []string{"ours", "geth"} {
		t.Run(impl, func(t *testing.T) {
			reqs, expect := workload(impl)
			conns, err := wsload.OpenIdle(context.Background(), serve(t, impl), 30, 8, reqs[0], expect)
			if err != nil {
				t.Fatal(err)
			}
			if len(conns) != 30 {
				t.Fatalf("%d connections", len(conns))
			}
			wsload.CloseAll(conns)
		})
	}
}

func TestServeRefusesAnUnknownServer(t *testing.T) {
	if err := Serve(context.Background(), "nginx", io.Discard); err == nil {
		t.Fatal("no error")
	}
}
