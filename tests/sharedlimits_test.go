package tests

// sharedlimits_test.go runs two bin/caddy nodes on one NATS hub whose
// rate limit zones share their counts: a key that spent most of its
// budget on one node has only the rest on the other, within the sync
// interval's approximation, unless the zone is local.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sharedLimitsCaddyfile is one node: /shared has a zone of 40 calls a
// minute per X-Api-Key that the nodes share, /local the same zone kept on
// each node.
const sharedLimitsCaddyfile = `{
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
			subject_prefix shared_limits_test
		}
		rate_limit {
			sync_interval 200ms
			zone per_key {
				key {header.X-Api-Key}
				events 40
				window 1m
			}
		}
	}
	jsonrpc /local {
		service demo
		hub nats {
			url {{nats}}
			subject_prefix shared_limits_test
		}
		rate_limit {
			zone per_key_here {
				key {header.X-Api-Key}
				events 40
				window 1m
				local
			}
		}
	}
}
`

// startLimitNode starts a node of sharedLimitsCaddyfile and returns its
// base URL.
func startLimitNode(t *testing.T, natsURL string) string {
	t.Helper()
	https, admin := freePort(t), freePort(t)
	caddyfile := strings.NewReplacer(
		"{{admin}}", fmt.Sprint(admin),
		"{{http}}", fmt.Sprint(freePort(t)),
		"{{https}}", fmt.Sprint(https),
		"{{nats}}", natsURL,
	).Replace(sharedLimitsCaddyfile)
	base := fmt.Sprintf("https://localhost:%d", https)
	client := newClient(false, false)
	startCaddy(t, caddyfile, fmt.Sprintf("http://localhost:%d", admin), func() error {
		req, _ := http.NewRequest(http.MethodPost, base+"/local", strings.NewReader(subtract))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", "ready")
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	})
	return base
}

func TestBinaryRateLimitsSharedAcrossNodes(t *testing.T) {
	caddyBinary(t)
	ns := startNATS(t)
	a, b := startLimitNode(t, ns.URL), startLimitNode(t, ns.URL)
	client := newClient(false, true)
	calls := func(base, path, key string) (results, limited int) {
		res := postKey(t, client, base+path, key, batchOf(30, "subtract", "[2,1]"))
		results, limited, _ = countAnswers(t, res.body)
		return results, limited
	}

	t.Run("a key's budget is split across the nodes", func(t *testing.T) {
		start := time.Now()
		if results, _ := calls(a, "/shared", "k"); results != 30 {
			t.Fatalf("node a ran %d of 30 calls, budget 40", results)
		}
		time.Sleep(time.Second) // five sync intervals
		results, limited := calls(b, "/shared", "k")
		// Node b counts a's 30 calls and admits the 10 left, plus what
		// the key regained meanwhile (one call every 1.5s); it cannot
		// count less than a reported, nor more than a spent.
		regained := int(time.Since(start)/(1500*time.Millisecond)) + 1
		if results < 10 || results > 10+regained || results+limited != 30 {
			t.Fatalf("after 30 calls on node a, node b ran %d and refused %d of 30: want 10 to %d run",
				results, limited, 10+regained)
		}
		time.Sleep(time.Second)
		if results, _ := calls(a, "/shared", "k"); results > regained+1 {
			t.Fatalf("node a ran %d more calls of the spent key", results)
		}
	})

	t.Run("a local zone gives each node the whole budget", func(t *testing.T) {
		if results, _ := calls(a, "/local", "k"); results != 30 {
			t.Fatalf("node a ran %d of 30", results)
		}
		time.Sleep(500 * time.Millisecond)
		if results, _ := calls(b, "/local", "k"); results != 30 {
			t.Fatalf("node b ran %d of 30 of a local zone", results)
		}
	})
}
