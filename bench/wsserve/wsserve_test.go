package wsserve

import (
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
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
	if impl == "geth" {
		return wsload.Workload(inprocess.GethRename)
	}
	return wsload.Workload(nil)
}

func TestEveryServerAnswersPipelinedCalls(t *testing.T) {
	for _, impl := range []string{"ours", "geth"} {
		t.Run(impl, func(t *testing.T) {
			reqs, expect := workload(impl)
			rates, err := pipeline.Run(context.Background(), pipeline.Config{Conns: 2, Depth: 16, Requests: reqs,
				Expect: expect.Prepare(), Windows: pipeline.Windows{Warmup: 10 * time.Millisecond,
					Length: 20 * time.Millisecond, Count: 2}}, wsload.Dialer(serve(t, impl)))
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
func chat(u string) wsload.BroadcastConfig {
	return wsload.BroadcastConfig{SubscriberURLs: []string{u, u}, PublisherURLs: []string{u}, Subscribers: 20,
		Subscribe:    []byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`),
		Notification: "demo_subscription", Timeout: 10 * time.Second,
		Publish: func(id int, text string) []byte {
			return []byte(`{"jsonrpc":"2.0","method":"demo_publish","params":["chat",` + strconv.Quote(text) + `],"id":` + strconv.Itoa(id) + `}`)
		},
	}
}

func TestEveryServerBroadcastsToEverySubscriber(t *testing.T) {
	for _, impl := range Impls {
		t.Run(impl, func(t *testing.T) {
			b, err := wsload.OpenBroadcast(context.Background(), chat(serve(t, impl)))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			times, err := wsload.Times(context.Background(), b, 1, 3)
			if err != nil || len(times) != 3 || times[0] <= 0 {
				t.Fatalf("times %v, %v", times, err)
			}
		})
	}
}

func TestOursAndTheFanOutDeliverAStreamToEverySubscriber(t *testing.T) {
	for _, impl := range []string{"ours", "fanout", "fanout_parallel"} {
		t.Run(impl, func(t *testing.T) {
			session := chat(serve(t, impl))
			session.PublisherURLs = append(session.PublisherURLs, session.PublisherURLs...)
			res, err := wsload.Delivery(context.Background(), wsload.DeliveryConfig{BroadcastConfig: session,
				LatencyWarmup: 1, LatencyRuns: 2, Warmup: 20 * time.Millisecond, Window: 100 * time.Millisecond, Windows: 2,
				InFlight: 4, Lag: 16,
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
			url := serve(t, impl)
			conns, err := pipeline.Open(context.Background(), 30, 8, func(ctx context.Context, _ int) (*wsload.Conn, error) {
				c, err := wsload.Dial(ctx, url)
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

func TestServeRefusesAnUnknownServer(t *testing.T) {
	if err := Serve(context.Background(), "nginx", io.Discard); err == nil {
		t.Fatal("no error")
	}
}
