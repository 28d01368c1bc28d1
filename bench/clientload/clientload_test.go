package clientload

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// serveOurs runs the harness's WebSocket server of ours in this process
// and returns its URL.
func serveOurs(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	go childserve.Serve(ctx, "ours", w)
	t.Cleanup(cancel)
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, r)
	return strings.TrimSpace(line)
}

func TestWorkloadDecodesTheFiveRequests(t *testing.T) {
	calls, err := Workload()
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 5 || calls[0].Method != "add" || calls[0].Want != 3.0 || len(calls[0].Args) != 2 ||
		calls[4].Want != "Foo" {
		t.Fatalf("%+v", calls)
	}
}

func TestEveryClientCallsAndCounts(t *testing.T) {
	calls, err := Workload()
	if err != nil {
		t.Fatal(err)
	}
	url := serveOurs(t)
	for client := range drivers {
		t.Run(client, func(t *testing.T) {
			res, err := Run(context.Background(), Config{URL: url, Client: client, Conns: 2, Depth: 8, Calls: calls,
				Windows: pipeline.Windows{Warmup: 10 * time.Millisecond, Length: 30 * time.Millisecond, Count: 2},
				Numeric: pipeline.Windows{Warmup: 5 * time.Millisecond, Length: 20 * time.Millisecond, Count: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.All) != 2 || len(res.Numeric) != 2 {
				t.Fatalf("windows %+v", res)
			}
			for _, w := range append(res.All, res.Numeric...) {
				if w.Rate <= 0 || w.Allocs < 0 || math.IsNaN(w.Allocs) || math.IsInf(w.Allocs, 0) {
					t.Fatalf("window %+v", w)
				}
			}
		})
	}
}

func TestEveryClientChecksTheValues(t *testing.T) {
	calls, err := Workload()
	if err != nil {
		t.Fatal(err)
	}
	calls[2].Want, calls[2].Result = 1.24, "1.24" // NullableFloatToNullableFloat answers 1.23
	url := serveOurs(t)
	for client := range drivers {
		_, err := Run(context.Background(), Config{URL: url, Client: client, Conns: 1, Depth: 4, Calls: calls,
			Windows: pipeline.Windows{Length: time.Second, Count: 3}})
		if err == nil || !strings.Contains(err.Error(), "answered 1.23, want 1.24") {
			t.Errorf("%s: %v", client, err)
		}
	}
}

func TestRunRefusesTargetsOffThisMachineAndUnknownClients(t *testing.T) {
	calls, _ := Workload()
	w := pipeline.Windows{Length: time.Millisecond, Count: 1}
	if _, err := Run(context.Background(), Config{URL: "ws://8.8.8.8/", Client: Ours, Conns: 1, Depth: 1, Calls: calls,
		Windows: w}); !errors.Is(err, load.ErrNotLoopback) {
		t.Errorf("8.8.8.8: %v", err)
	}
	if _, err := Run(context.Background(), Config{URL: "ws://127.0.0.1:1/", Client: "jrpc2", Conns: 1, Depth: 1, Calls: calls,
		Windows: w}); err == nil || !strings.Contains(err.Error(), "no client") {
		t.Errorf("an unknown client: %v", err)
	}
}
