package tests

// natscluster_limits_test.go runs two bin/caddy nodes whose rate limit
// zone is shared through a cluster of three NATS servers, and loses the
// server one node is connected to while both count calls of one key: the
// server stalls for a second, as a machine dropping off the network, and
// is killed. The reports the node wrote to it meanwhile were never
// confirmed: they are sent again on the server it moves to, and counted
// once; the reports of the other node that it missed meanwhile it asks
// for again.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// clusterLimitsCaddyfile is one node: /shared has a zone of 10000 calls a
// day per X-Api-Key, shared through the hub, reported every 50ms.
const clusterLimitsCaddyfile = `{
	admin localhost:{{admin}}
	default_bind 127.0.0.1
	skip_install_trust
	auto_https disable_redirects
	http_port {{http}}
	https_port {{https}}
}

https://localhost:{{https}} {
	tls internal
	jsonrpc /shared {
		service demo
		hub nats {
			url {{nats}}
			subject_prefix cluster_limits_test
			name {{name}}
		}
		rate_limit {
			sync_interval 50ms
			zone per_key {
				key {header.X-Api-Key}
				events 10000
				window 24h
			}
		}
	}
}
`

// The zone of clusterLimitsCaddyfile.
const (
	clusterLimitEvents   = 10000
	clusterLimitInterval = 24 * time.Hour / clusterLimitEvents // a key regains one call this often
	clusterLimitSync     = 50 * time.Millisecond
)

// startClusterLimitNode starts a node of clusterLimitsCaddyfile on the
// NATS servers at urls, its connection named name, and returns its
// /shared URL.
func startClusterLimitNode(t *testing.T, urls []string, name string) string {
	t.Helper()
	https, admin := freePort(t), freePort(t)
	caddyfile := strings.NewReplacer(
		"{{admin}}", fmt.Sprint(admin),
		"{{http}}", fmt.Sprint(freePort(t)),
		"{{https}}", fmt.Sprint(https),
		"{{nats}}", strings.Join(urls, " "),
		"{{name}}", name,
	).Replace(clusterLimitsCaddyfile)
	url := fmt.Sprintf("https://localhost:%d/shared", https)
	client := newClient(false, false)
	startCaddy(t, caddyfile, fmt.Sprintf("http://localhost:%d", admin), func() error {
		_, _, err := limitCalls(client, url, "ready", 1)
		return err
	})
	return url
}

// limitCalls sends a batch of n calls of key to url and returns how many
// ran and how many the rate limit refused. Safe on any goroutine.
func limitCalls(c *http.Client, url, key string, n int) (ran, refused int, err error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(batchOf(n, "subtract", "[2,1]")))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	res, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, 0, err
	}
	var answers []batchAnswer
	if err := json.Unmarshal(body, &answers); err != nil || len(answers) != n {
		return 0, 0, fmt.Errorf("status %d, answer %.200q: %v", res.StatusCode, body, err)
	}
	for _, a := range answers {
		switch {
		case a.Error == nil:
			ran++
		case a.Error.Code == -32005:
			refused++
		default:
			return ran, refused, fmt.Errorf("unexpected error %+v", *a.Error)
		}
	}
	return ran, refused, nil
}

// exhaust sends batches of 100 calls of key to url until one is refused,
// and returns how many ran.
func exhaust(t *testing.T, c *http.Client, url, key string) int {
	t.Helper()
	total := 0
	for range clusterLimitEvents/100 + 2 {
		ran, refused, err := limitCalls(c, url, key, 100)
		if err != nil {
			t.Fatal(err)
		}
		total += ran
		if refused > 0 {
			return total
		}
	}
	t.Fatalf("%d calls of %s ran on %s, more than the zone's %d", total, key, url, clusterLimitEvents)
	return total
}

func TestClusterSharedLimitsCountAcrossTheLossOfANATSServer(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	caddyBinary(t)
	c := startNATSCluster(t)
	a := startClusterLimitNode(t, c.URLs(), "limits-a")
	lost := c.clientServer("limits-a")
	if lost < 0 {
		t.Fatal("node a is not connected to the cluster")
	}
	// Node b starts on the other two servers, so that the kill moves
	// node a alone.
	var others []string
	for i, u := range c.URLs() {
		if i != lost {
			others = append(others, u)
		}
	}
	b := startClusterLimitNode(t, others, "limits-b")
	client := newClient(false, true)
	time.Sleep(500 * time.Millisecond) // each node's subscription to the reports reaches every server

	// Phase 1: both nodes take calls of the key, 10 every 20ms each, for
	// 3s (3000 at most together, under the budget of 10000); node a's
	// NATS server stalls 1s in, and is killed a second later.
	const (
		pace    = 20 * time.Millisecond
		perCall = 10
	)
	start := time.Now()
	var (
		wg          sync.WaitGroup
		mu          sync.Mutex
		ran, refuse int
		failed      error
	)
	for _, url := range []string{a, b} {
		wg.Go(func() {
			for time.Since(start) < 3*time.Second {
				r, f, err := limitCalls(client, url, "k", perCall)
				mu.Lock()
				ran, refuse = ran+r, refuse+f
				if err != nil && failed == nil {
					failed = err
				}
				mu.Unlock()
				if err != nil {
					return
				}
				time.Sleep(pace)
			}
		})
	}
	time.Sleep(time.Second)
	c.freeze(lost)
	time.Sleep(time.Second)
	c.kill(lost)
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	if refuse != 0 {
		t.Fatalf("%d calls refused while the key had spent %d of %d", refuse, ran, clusterLimitEvents)
	}
	if moved := c.clientServer("limits-a"); moved < 0 || moved == lost {
		t.Fatalf("node a is on server %d after the kill of %s", moved, c.name(lost))
	}
	t.Logf("phase 1: %d calls ran on the two nodes; %s, node a's server, stalled 1s in and was killed 2s in", ran, c.name(lost))
	time.Sleep(500 * time.Millisecond) // every report sent, or sent again, and counted

	// Phase 2: node b alone spends what is left. It has room for exactly
	// what the nodes did not spend in phase 1, plus what the key regained
	// since it began: each of node a's reports counted once, none lost
	// to the kill (a lost one would leave its calls to spend again), none
	// counted twice.
	regained := int(time.Since(start)/clusterLimitInterval) + 1
	onB := exhaust(t, client, b, "k")
	if left := clusterLimitEvents - ran; onB < left || onB > left+regained {
		t.Fatalf("node b ran %d calls after the two nodes had run %d of %d; want %d to %d", onB, ran, clusterLimitEvents,
			left, left+regained)
	}
	time.Sleep(500 * time.Millisecond)

	// Phase 3: node a has no second budget. Its server stalled for a
	// second before it died, and node a got none of node b's reports
	// meanwhile (core NATS hands a message to the subscriptions of the
	// moment); back on NATS, it asked node b for them again.
	onA := exhaust(t, client, a, "k")
	if onA > regained {
		t.Fatalf("node a ran %d more calls of the spent key; want at most the %d it regained", onA, regained)
	}
	// The bound over all, as the zone promises it: its events, what the
	// key regained meanwhile, and one sync interval of lag (each node
	// decides with what it heard, and does not hear what the other spent
	// since its last report): at most the batches node b started in one
	// sync interval of phase 1 (one every pace at most) and one in flight.
	// Here the budget runs out in phases 2 and 3, one node at a time, so
	// the nodes do not use the lag.
	lag := (int(clusterLimitSync/pace) + 2) * perCall
	if total := ran + onB + onA; total > clusterLimitEvents+regained+lag {
		t.Fatalf("the nodes ran %d calls of one key in all, want at most %d + %d + %d", total, clusterLimitEvents, regained, lag)
	}
	t.Logf("phase 2: node b ran %d; phase 3: node a ran %d; %d in all, the zone's %d plus %d regained", onB, onA,
		ran+onB+onA, clusterLimitEvents, regained)
}
