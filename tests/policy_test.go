package tests

// policy_test.go drives bin/caddy with rate limits and per-identity method
// lists: a batch over the budget, 429 with Retry-After, budgets per key
// shared between HTTP and WebSocket, methods by basic_auth user, and (on
// request) what the limits cost an HTTPS endpoint.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// policyCaddyfile serves the demo service with a rate limit zone keyed by
// a header (/limited), with methods by basic_auth user (/users), and, for
// the overhead measurement, with and without a zone keyed by the client's
// address (/plain, /zoned).
const policyCaddyfile = `{
	admin localhost:{{admin}}
	default_bind 127.0.0.1
	skip_install_trust
	auto_https disable_redirects
	http_port {{http}}
	https_port {{https}}
}

https://localhost:{{https}} {
	tls internal
	jsonrpc /limited {
		service demo
		rate_limit {
			zone per_key {
				key {header.X-Api-Key}
				events 50
				window 1h
				cost sum 10
			}
		}
	}
	route /users {
		basic_auth {
			alice {{hash}}
			bob {{hash}}
		}
		jsonrpc {
			service demo
			methods {
				allow subtract
				identity {http.auth.user.id} {
					alice allow *
				}
			}
		}
	}
	jsonrpc /plain {
		service demo
	}
	@zoned {
		path /zoned
		jsonrpc_method sub* eth_get*
	}
	jsonrpc @zoned {
		service demo
		rate_limit {
			zone overhead {
				key {remote_host}
				events 1000000000
				window 1h
				cost sum 2
			}
		}
	}
}
`

// policySite is bin/caddy serving policyCaddyfile.
type policySite struct {
	*exampleServer
	base string // https://localhost:<port>
}

// startPolicySite hashes the users' password and starts bin/caddy.
func startPolicySite(t *testing.T) policySite {
	t.Helper()
	// bcrypt's lowest cost: the tests check who may call what, not the
	// hash's strength, and at Caddy's default cost (14) every request with a
	// password costs basic_auth a second of CPU, ten where the two cores are
	// busy, past the requests' timeout.
	hash, stderr, err := runCaddy(t, "hash-password", "--algorithm", "bcrypt", "--bcrypt-cost", "4", "--plaintext", "secret")
	if err != nil {
		t.Fatalf("hash-password: %v\n%s", err, stderr)
	}
	https, admin := freePort(t), freePort(t)
	caddyfile := strings.NewReplacer(
		"{{admin}}", fmt.Sprint(admin),
		"{{http}}", fmt.Sprint(freePort(t)),
		"{{https}}", fmt.Sprint(https),
		"{{hash}}", strings.TrimSpace(hash),
	).Replace(policyCaddyfile)
	base := fmt.Sprintf("https://localhost:%d", https)
	s := startCaddy(t, caddyfile, fmt.Sprintf("http://localhost:%d", admin), func() error {
		res, err := newClient(false, false).Post(base+"/plain", "application/json", strings.NewReader(subtract))
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	})
	return policySite{exampleServer: s, base: base}
}

// batchOf is a batch of n calls of method with params, ids 1 to n.
func batchOf(n int, method, params string) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s,"id":%d}`, method, params, i+1)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// limitError is the error member of a call a rate limit refused.
type limitError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		RetryAfterMS int64  `json:"retry_after_ms"`
		Zone         string `json:"zone"`
	} `json:"data"`
}

// batchAnswer is one answer of a batch.
type batchAnswer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *limitError     `json:"error"`
}

// countAnswers decodes a batch answer and counts its results and limit
// errors, failing on anything else.
func countAnswers(t *testing.T, body string) (results, limited int, all []batchAnswer) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), &all); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	for _, a := range all {
		switch {
		case a.Error == nil:
			results++
		case a.Error.Code == -32005 && a.Error.Message == "Limit exceeded" && a.Error.Data.RetryAfterMS > 0:
			limited++
		default:
			t.Fatalf("unexpected error %+v", *a.Error)
		}
	}
	return results, limited, all
}

// postKey POSTs doc to url with the X-Api-Key header.
func postKey(t *testing.T, c *http.Client, url, key, doc string) response {
	t.Helper()
	return do(t, c, http.MethodPost, url, "application/json", strings.NewReader(doc), map[string]string{"X-Api-Key": key})
}

func TestBinaryRateLimits(t *testing.T) {
	s := startPolicySite(t)
	client := newClient(false, true)
	url := s.base + "/limited"

	t.Run("a batch of 100 against a budget of 50", func(t *testing.T) {
		res := postKey(t, client, url, "batch", batchOf(100, "subtract", "[2,1]"))
		if res.status != http.StatusOK {
			t.Fatalf("status %d, want 200", res.status)
		}
		results, limited, all := countAnswers(t, res.body)
		if results != 50 || limited != 50 {
			t.Fatalf("%d results and %d limit errors, want 50 and 50", results, limited)
		}
		for i, a := range all {
			if a.ID != i+1 || (i < 50) != (a.Error == nil) {
				t.Fatalf("answer %d: id %d, error %v: want the first 50 to run, in request order", i, a.ID, a.Error)
			}
			if a.Error != nil && (a.Error.Data.Zone != "per_key" || a.Error.Data.RetryAfterMS > 72000) {
				t.Fatalf("answer %d: %+v (50 an hour: the next one within 72s)", i, *a.Error)
			}
		}
	})

	t.Run("all refused is 429 with Retry-After", func(t *testing.T) {
		res := postKey(t, client, url, "batch", batchOf(3, "subtract", "[2,1]"))
		if res.status != http.StatusTooManyRequests {
			t.Fatalf("status %d, want 429", res.status)
		}
		secs, err := strconv.Atoi(res.header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 72 {
			t.Errorf("Retry-After %q, want whole seconds up to 72", res.header.Get("Retry-After"))
		}
		if _, limited, _ := countAnswers(t, res.body); limited != 3 {
			t.Errorf("the 429's body holds %d limit errors, want 3", limited)
		}
	})

	t.Run("each key has its own budget", func(t *testing.T) {
		res := postKey(t, client, url, "another", batchOf(20, "subtract", "[2,1]"))
		if results, _, _ := countAnswers(t, res.body); res.status != http.StatusOK || results != 20 {
			t.Fatalf("another key: status %d, %d results", res.status, results)
		}
	})

	t.Run("costs", func(t *testing.T) {
		res := postKey(t, client, url, "cost", batchOf(6, "sum", "[1,2]"))
		if results, limited, _ := countAnswers(t, res.body); results != 5 || limited != 1 {
			t.Fatalf("sum costs 10 of 50: %d results, %d limited; want 5 and 1", results, limited)
		}
	})

	t.Run("WebSocket messages count against the key, with HTTP", func(t *testing.T) {
		wsURL := "wss" + strings.TrimPrefix(url, "https")
		c, _, err := wsDial(t, wsURL, http.Header{"X-Api-Key": {"ws"}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			wsSend(t, c, fmt.Sprintf(`{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":%d}`, i))
			if a := wsRecv(t, c); a["result"] != 1.0 {
				t.Fatalf("message %d: %v", i, a)
			}
		}
		wsSend(t, c, batchOf(30, "subtract", "[2,1]"))
		_, msg, err := c.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if results, limited, _ := countAnswers(t, string(msg)); results != 20 || limited != 10 {
			t.Fatalf("after 30 messages, a batch of 30: %d results, %d limited; want 20 and 10", results, limited)
		}
		second, _, err := wsDial(t, wsURL, http.Header{"X-Api-Key": {"ws"}})
		if err != nil {
			t.Fatal(err)
		}
		wsSend(t, second, `{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":1}`)
		if a := wsRecv(t, second); a["error"] == nil {
			t.Fatalf("another connection of the spent key: %v", a)
		}
		if res := postKey(t, client, url, "ws", subtract); res.status != http.StatusTooManyRequests {
			t.Fatalf("HTTP with the key WebSocket spent: status %d", res.status)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		wantMetrics(t, scrape(t, s.admin), `caddy_jsonrpc_rate_limited_total{zone="per_key"}`)
	})
}

func TestBinaryMethodsByBasicAuthUser(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startPolicySite(t)
	client := newClient(true, true)
	call := func(user, password, doc string) response {
		var header map[string]string
		if user != "" {
			header = map[string]string{"Authorization": "Basic " +
				base64.StdEncoding.EncodeToString([]byte(user+":"+password))}
		}
		return do(t, client, http.MethodPost, s.base+"/users", "application/json", strings.NewReader(doc), header)
	}
	sum := `{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":1}`
	wantAnswer(t, call("alice", "secret", sum), `{"jsonrpc":"2.0","result":7,"id":1}`)
	wantAnswer(t, call("bob", "secret", sum),
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`)
	wantAnswer(t, call("bob", "secret", subtract), `{"jsonrpc":"2.0","result":19,"id":1}`)
	wantAnswer(t, call("alice", "secret", subtract), `{"jsonrpc":"2.0","result":19,"id":1}`)
	for _, tt := range []struct{ user, password string }{{"", ""}, {"alice", "wrong"}} {
		if res := call(tt.user, tt.password, sum); res.status != http.StatusUnauthorized {
			t.Errorf("user %q with password %q: status %d, want 401 from basic_auth", tt.user, tt.password, res.status)
		}
	}
}

// TestBinaryRateLimitOverheadHTTPS measures what a jsonrpc_method matcher
// and one rate limit zone cost an HTTPS endpoint: batches of 10 calls to
// /plain and to /zoned (the same endpoint behind the matcher, with a zone
// counting every call) from the same
// clients, in pairs of short rounds (each pair in the other order than the
// last), and the median of the pairs' ratios, so that a passing load on
// the machine skews one pair rather than the result. It runs when
// JSONRPC_OVERHEAD is set:
//
//	JSONRPC_OVERHEAD=1 go test -run TestBinaryRateLimitOverheadHTTPS -v ./tests/
func TestBinaryRateLimitOverheadHTTPS(t *testing.T) {
	if os.Getenv("JSONRPC_OVERHEAD") == "" {
		t.Skip("set JSONRPC_OVERHEAD=1 to measure")
	}
	s := startPolicySite(t)
	const workers, pairs, round = 8, 15, 400 * time.Millisecond
	doc := batchOf(10, "subtract", "[2,1]")
	clients := make([]*http.Client, workers)
	for i := range clients {
		clients[i] = newClient(false, true)
	}
	measure := func(path string) float64 {
		var n atomic.Int64
		deadline := time.Now().Add(round)
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					if res := rpc(t, c, s.base+path, doc); res.status != http.StatusOK || strings.Contains(res.body, "error") {
						t.Errorf("%s: %d %s", path, res.status, res.body)
						return
					}
					n.Add(1)
				}
			})
		}
		wg.Wait()
		return float64(n.Load()) / round.Seconds()
	}
	measure("/plain") // warm up both
	measure("/zoned")
	ratios := make([]float64, pairs)
	var plain, zoned float64
	for i := range ratios {
		var p, z float64
		if i%2 == 0 {
			p, z = measure("/plain"), measure("/zoned")
		} else {
			z, p = measure("/zoned"), measure("/plain")
		}
		plain, zoned = plain+p, zoned+z
		ratios[i] = z / p
	}
	slices.Sort(ratios)
	ratio := ratios[pairs/2]
	t.Logf("over HTTPS, %d workers, batches of 10: /plain %.0f req/s, /zoned %.0f req/s on average; "+
		"median ratio of %d pairs %.3fx (from %.3f to %.3f)",
		workers, plain/pairs, zoned/pairs, pairs, ratio, ratios[0], ratios[pairs-1])
	if ratio < 0.9 {
		t.Errorf("the endpoint with a zone does %.3fx the one without, want at least 0.9x", ratio)
	}
}
