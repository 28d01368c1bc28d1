package tests

// upstream_test.go forwards calls with the upstream service: a front
// bin/caddy with the demo service and two upstream services, each the
// demo of another bin/caddy process under a prefix of its own; and
// failover between two addresses when one process is killed.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// upstreamFrontCaddyfile serves the demo locally and forwards a_* to A
// and b_* to B, the prefix taken off.
const upstreamFrontCaddyfile = `{
	admin localhost:ADMIN
	default_bind 127.0.0.1
	auto_https off
}

http://127.0.0.1:PORT {
	jsonrpc /rpc {
		service demo
		service upstream {
			to http://127.0.0.1:A/rpc
			name a
			methods a_*
			strip_prefix a_
		}
		service upstream {
			to ws://127.0.0.1:B/rpc
			name b
			methods b_*
			strip_prefix b_
			health_interval 200ms
		}
	}
}
`

// upstreamFailoverCaddyfile forwards every call to the first of two
// addresses that is up.
const upstreamFailoverCaddyfile = `{
	admin localhost:ADMIN
	default_bind 127.0.0.1
	auto_https off
}

http://127.0.0.1:PORT {
	jsonrpc /rpc {
		service upstream {
			to SCHEME://127.0.0.1:FIRST/rpc SCHEME://127.0.0.1:SECOND/rpc
			name pair
			idempotent subtract
		}
	}
}
`

// plainCaddy starts bin/caddy from template as startPlainCaddy does and
// returns its base URL and process.
func plainCaddy(t *testing.T, template string, fill map[string]string) (string, *exampleServer) {
	t.Helper()
	admin, port := freePort(t), freePort(t)
	pairs := []string{"ADMIN", fmt.Sprint(admin), "PORT", fmt.Sprint(port)}
	for k, v := range fill {
		pairs = append(pairs, k, v)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	s := startCaddy(t, strings.NewReplacer(pairs...).Replace(template), fmt.Sprintf("http://localhost:%d", admin), func() error {
		res, err := http.Get(base + "/")
		if err == nil {
			res.Body.Close()
		}
		return err
	})
	return base, s
}

// portOf is the port of a base URL.
func portOf(base string) string { return base[strings.LastIndexByte(base, ':')+1:] }

// waitForMetric waits up to 5 seconds for the admin endpoint's metrics to
// hold line.
func waitForMetric(t *testing.T, admin, line string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(scrape(t, admin), line); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %q after 5s", line)
		}
	}
}

func TestUpstreamMixedBatchWithOneUpstreamDown(t *testing.T) {
	caddyBinary(t)
	a, aProc := plainCaddy(t, upstreamCaddyfile, map[string]string{"NAME": "a"})
	b, bProc := plainCaddy(t, upstreamCaddyfile, map[string]string{"NAME": "b"})
	front, frontProc := plainCaddy(t, upstreamFrontCaddyfile, map[string]string{"A": portOf(a), "B": portOf(b)})
	client := newClient(false, true)
	batch := `[
		{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1},
		{"jsonrpc":"2.0","method":"a_subtract","params":[10,3],"id":"a1"},
		{"jsonrpc":"2.0","method":"b_get_data","id":"b1"},
		{"jsonrpc":"2.0","method":"a_sum","params":[1,2,3],"id":2},
		{"jsonrpc":"2.0","method":"a_notify_hello","params":[7]},
		{"jsonrpc":"2.0","method":"b_subtract","params":{"minuend":5,"subtrahend":1},"id":3},
		{"jsonrpc":"2.0","method":"get_data","id":4},
		{"jsonrpc":"2.0","method":"a_nosuch","id":5}
	]`
	before := metricValue(scrape(t, aProc.admin), "caddy_jsonrpc_batch_size_sum")
	res := rpc(t, client, front+"/rpc", batch)
	wantAnswer(t, res, `[{"jsonrpc":"2.0","result":19,"id":1},`+
		`{"jsonrpc":"2.0","result":7,"id":"a1"},`+
		`{"jsonrpc":"2.0","result":["hello",5],"id":"b1"},`+
		`{"jsonrpc":"2.0","result":6,"id":2},`+
		`{"jsonrpc":"2.0","result":4,"id":3},`+
		`{"jsonrpc":"2.0","result":["hello",5],"id":4},`+
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":5}]`)
	// A got its three calls as one batch (the notification went on its
	// own).
	if got := metricValue(scrape(t, aProc.admin), "caddy_jsonrpc_batch_size_sum") - before; got != 3 {
		t.Errorf("A's batch sizes grew by %v, want 3: one batch of a_subtract, a_sum and a_nosuch", got)
	}

	bProc.stop(t)
	waitForMetric(t, frontProc.admin, fmt.Sprintf(`caddy_jsonrpc_upstream_healthy{address="ws://127.0.0.1:%s/rpc",upstream="b"} 0`, portOf(b)))
	for i := range 3 {
		res = rpc(t, client, front+"/rpc", batch)
		var answers []struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
				Data struct {
					Upstream string `json:"upstream"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(res.body), &answers); err != nil || len(answers) != 7 {
			t.Fatalf("round %d: %s", i, res.body)
		}
		wantIDs := []string{`1`, `"a1"`, `"b1"`, `2`, `3`, `4`, `5`}
		for j, ans := range answers {
			if string(ans.ID) != wantIDs[j] {
				t.Fatalf("round %d: answer %d has id %s, want %s: %s", i, j, ans.ID, wantIDs[j], res.body)
			}
		}
		for _, j := range []int{2, 4} {
			if e := answers[j].Error; e == nil || e.Code != -32002 || e.Data.Upstream != "b" {
				t.Errorf("round %d: B's call %s: %s, want -32002 naming upstream b", i, answers[j].ID, res.body)
			}
		}
		for j, want := range map[int]string{0: `19`, 1: `7`, 3: `6`, 5: `["hello",5]`} {
			if string(answers[j].Result) != want {
				t.Errorf("round %d: call %s answered %s, want %s", i, answers[j].ID, answers[j].Result, want)
			}
		}
	}
}

func TestUpstreamFailsOverWhenAnAddressIsKilled(t *testing.T) {
	caddyBinary(t)
	for _, scheme := range []string{"http", "ws"} {
		t.Run(scheme, func(t *testing.T) {
			first, firstProc := plainCaddy(t, upstreamCaddyfile, map[string]string{"NAME": "first"})
			second, _ := plainCaddy(t, upstreamCaddyfile, map[string]string{"NAME": "second"})
			front, frontProc := plainCaddy(t, upstreamFailoverCaddyfile, map[string]string{
				"SCHEME": scheme, "FIRST": portOf(first), "SECOND": portOf(second)})
			client := newClient(false, true)
			okAt := func(base string) float64 {
				return metricValue(scrape(t, frontProc.admin), fmt.Sprintf(
					`caddy_jsonrpc_upstream_calls_total{address="%s://127.0.0.1:%s/rpc",outcome="ok",upstream="pair"}`,
					scheme, portOf(base)))
			}
			call := `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
			wantAnswer(t, rpc(t, client, front+"/rpc", call), `{"jsonrpc":"2.0","result":19,"id":1}`)
			if okAt(first) != 1 || okAt(second) != 0 {
				t.Fatalf("before the kill: %v calls at the first, %v at the second; want 1 and 0", okAt(first), okAt(second))
			}
			if err := firstProc.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-firstProc.exited
			for range 10 {
				wantAnswer(t, rpc(t, client, front+"/rpc", call), `{"jsonrpc":"2.0","result":19,"id":1}`)
			}
			if got := okAt(second); got != 10 {
				t.Errorf("after the kill the second address answered %v calls, want 10", got)
			}
			if !strings.Contains(scrape(t, frontProc.admin), fmt.Sprintf(
				`caddy_jsonrpc_upstream_healthy{address="%s://127.0.0.1:%s/rpc",upstream="pair"} 0`, scheme, portOf(first))) {
				t.Error("the killed address is not reported down")
			}
		})
	}
}
