package upstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestForwardsCallsBatchesAndNotifications(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			a, b := startServer(t, "a"), startServer(t, "b")
			ua := provision(t, &Upstream{To: []string{urlOf(a, scheme)}, Methods: []string{"subtract", "whoami", "fail", "note"}})
			ub := provision(t, &Upstream{To: []string{urlOf(b, scheme)}, Methods: []string{"*"}})
			s := front(t, ua, ub)
			tests := []struct{ name, doc, want string }{
				{"a single call", `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
					`{"jsonrpc":"2.0","result":19,"id":1}`},
				{"named params", `{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":"s"}`,
					`{"jsonrpc":"2.0","result":19,"id":"s"}`},
				{"the upstream's error passes through", `{"jsonrpc":"2.0","method":"fail","id":2}`,
					`{"jsonrpc":"2.0","error":{"code":4711,"message":"failed on purpose","data":{"at":"a"}},"id":2}`},
				{"the upstream's -32601 passes through", `{"jsonrpc":"2.0","method":"nosuch","id":3}`,
					`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}`},
				{"a mixed batch in request order, with the clients' ids", `[
					{"jsonrpc":"2.0","method":"whoami","id":"x"},
					{"jsonrpc":"2.0","method":"local","id":[]},
					{"jsonrpc":"2.0","method":"local","id":10},
					{"jsonrpc":"2.0","method":"get_data","id":11},
					{"jsonrpc":"2.0","method":"note","params":["n1"]},
					{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1},
					{"jsonrpc":"2.0","method":"whoami","id":1}]`,
					`[{"jsonrpc":"2.0","result":"a","id":"x"},` +
						`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},` +
						`{"jsonrpc":"2.0","result":"here","id":10},` +
						`{"jsonrpc":"2.0","result":["hello",5],"id":11},` +
						`{"jsonrpc":"2.0","result":-1,"id":1},` +
						`{"jsonrpc":"2.0","result":"a","id":1}]`},
				{"a notification", `{"jsonrpc":"2.0","method":"note","params":["n2"]}`, ``},
			}
			for _, tt := range tests {
				if got := call(t, s, tt.doc); got != tt.want {
					t.Errorf("%s:\ngot  %s\nwant %s", tt.name, got, tt.want)
				}
			}
			waitFor(t, "the notifications", func() bool { return fmt.Sprint(a.noted()) == "[n1 n2]" })
			if scheme == "http" {
				// a: subtract, subtract, fail, one batch (whoami, subtract,
				// whoami), the notifications n1 and n2.
				if got := a.posts.Load(); got != 6 {
					t.Errorf("a got %d POSTs, want 6: the batch's calls go as one batch", got)
				}
			}
		})
	}
}

// waitFor waits up to 5 seconds for ok.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 5s", what)
		}
	}
}

// errorOf decodes the error of a single answer.
func errorOf(t *testing.T, answer string) (code int, data errorData) {
	t.Helper()
	var a struct {
		Error *struct {
			Code int       `json:"code"`
			Data errorData `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(answer), &a); err != nil || a.Error == nil {
		t.Fatalf("answer %s: not an error (%v)", answer, err)
	}
	return a.Error.Code, a.Error.Data
}

func TestFailsOverToTheNextAddress(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			live := startServer(t, "live")
			dead := deadURL(t, scheme)
			u := provision(t, &Upstream{To: []string{dead, urlOf(live, scheme)}, Name: "failover-" + scheme})
			s := front(t, u)
			for i := range 3 {
				if got, want := call(t, s, `{"jsonrpc":"2.0","method":"whoami","id":1}`), `{"jsonrpc":"2.0","result":"live","id":1}`; got != want {
					t.Fatalf("call %d: %s, want %s", i, got, want)
				}
			}
			if !u.targets[0].isDown() {
				t.Error("the dead address is not marked down")
			}
			if got := testutil.ToFloat64(u.targets[0].metrics.healthy); got != 0 {
				t.Errorf("healthy gauge of the dead address: %v", got)
			}
			if got := testutil.ToFloat64(u.targets[1].metrics.calls[outcomeOK]); got != 3 {
				t.Errorf("ok calls counted at the live address: %v", got)
			}
		})
	}
}

func TestEveryAddressDown(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			u := provision(t, &Upstream{To: []string{deadURL(t, scheme), deadURL(t, scheme)}, Name: "gone"})
			s := front(t, u)
			code, data := errorOf(t, call(t, s, `{"jsonrpc":"2.0","method":"whoami","id":1}`))
			if code != CodeUnavailable || data.Upstream != "gone" || !strings.Contains(data.Error, "refused") {
				t.Errorf("first call: %d %+v, want -32002 naming the upstream and the refusal", code, data)
			}
			code, data = errorOf(t, call(t, s, `{"jsonrpc":"2.0","method":"whoami","id":1}`))
			if code != CodeUnavailable || data.Error != errAllDown.Error() {
				t.Errorf("second call: %d %+v, want -32002 %q", code, data, errAllDown)
			}
			got := call(t, s, `[{"jsonrpc":"2.0","method":"whoami","id":1},{"jsonrpc":"2.0","method":"local","id":2},{"jsonrpc":"2.0","method":"whoami"}]`)
			want := `[{"jsonrpc":"2.0","error":{"code":-32002,"message":"Upstream unavailable","data":{"upstream":"gone","error":"every server is marked down"}},"id":1},` +
				`{"jsonrpc":"2.0","result":"here","id":2}]`
			if got != want {
				t.Errorf("batch:\ngot  %s\nwant %s", got, want)
			}
		})
	}
}

// hangUp makes a server read each POST, then drop the connection without
// answering: the call's outcome is unknown.
func hangUp(w http.ResponseWriter, _ *http.Request) bool {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
	return true
}

func TestOutcomeUnknownIsRetriedOnlyWhenIdempotent(t *testing.T) {
	first, second := startServer(t, "first"), startServer(t, "second")
	first.setIntercept(hangUp)
	u := provision(t, &Upstream{To: []string{first.URL, second.URL}, Idempotent: []string{"who*"}})
	s := front(t, u)
	got := call(t, s, `[{"jsonrpc":"2.0","method":"whoami","id":1},{"jsonrpc":"2.0","method":"get_data","id":2}]`)
	var answers []json.RawMessage
	if err := json.Unmarshal([]byte(got), &answers); err != nil || len(answers) != 2 {
		t.Fatalf("answer %s", got)
	}
	if string(answers[0]) != `{"jsonrpc":"2.0","result":"second","id":1}` {
		t.Errorf("the idempotent call: %s, want it answered by the second server", answers[0])
	}
	if code, data := errorOf(t, string(answers[1])); code != CodeOutcomeUnknown || !strings.Contains(data.Error, "EOF") {
		t.Errorf("the other call: %s, want -32020 with the upstream's error", answers[1])
	}
	if second.calls.Load() != 1 {
		t.Errorf("the second server got %d calls, want only the idempotent one", second.calls.Load())
	}
}

func TestServiceUnavailableFailsOver(t *testing.T) {
	busy, ok := startServer(t, "busy"), startServer(t, "ok")
	busy.setIntercept(func(w http.ResponseWriter, _ *http.Request) bool {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return true
	})
	u := provision(t, &Upstream{To: []string{busy.URL, ok.URL}})
	if got := call(t, front(t, u), `{"jsonrpc":"2.0","method":"whoami","id":1}`); got != `{"jsonrpc":"2.0","result":"ok","id":1}` {
		t.Errorf("got %s", got)
	}
}

func TestBadAnswer(t *testing.T) {
	teapot := startServer(t, "teapot")
	teapot.setIntercept(func(w http.ResponseWriter, _ *http.Request) bool {
		http.Error(w, "short and stout", http.StatusTeapot)
		return true
	})
	u := provision(t, &Upstream{To: []string{teapot.URL}})
	code, data := errorOf(t, call(t, front(t, u), `{"jsonrpc":"2.0","method":"whoami","id":1}`))
	if code != CodeBadAnswer || !strings.Contains(data.Error, "418") {
		t.Errorf("got %d %+v", code, data)
	}
	if u.targets[0].isDown() {
		t.Error("a server that answers is not down")
	}
}

func TestTimeout(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			slow := startServer(t, "slow")
			u := provision(t, &Upstream{To: []string{urlOf(slow, scheme)}, Timeout: caddyDuration(100 * time.Millisecond)})
			s := front(t, u)
			start := time.Now()
			code, data := errorOf(t, call(t, s, `{"jsonrpc":"2.0","method":"delay","params":[2000],"id":1}`))
			if code != CodeOutcomeUnknown || !strings.Contains(data.Error, "timeout of 100ms") {
				t.Errorf("got %d %+v", code, data)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("answered after %v", took)
			}
			if got := call(t, s, `{"jsonrpc":"2.0","method":"whoami","id":2}`); got != `{"jsonrpc":"2.0","result":"slow","id":2}` {
				t.Errorf("after a timeout: %s (a slow answer does not mark the server down)", got)
			}
		})
	}
}

func TestMaxResponse(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			srv := startServer(t, "srv")
			u := provision(t, &Upstream{To: []string{urlOf(srv, scheme)}, MaxResponse: 1000})
			s := front(t, u)
			code, _ := errorOf(t, call(t, s, `{"jsonrpc":"2.0","method":"big","params":[2000],"id":1}`))
			if code != -32003 {
				t.Errorf("an answer over max_response: %d, want -32003", code)
			}
			want := `{"jsonrpc":"2.0","result":"` + strings.Repeat("x", 500) + `","id":2}`
			waitFor(t, "a call after the large answer", func() bool {
				return call(t, s, `{"jsonrpc":"2.0","method":"big","params":[500],"id":2}`) == want
			})
		})
	}
}

func TestMaxBatchSplitsTheGroup(t *testing.T) {
	srv := startServer(t, "srv")
	u := provision(t, &Upstream{To: []string{srv.URL}, MaxBatch: 2})
	var doc, want []string
	for i := range 5 {
		doc = append(doc, fmt.Sprintf(`{"jsonrpc":"2.0","method":"subtract","params":[%d,1],"id":%d}`, i, i))
		want = append(want, fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, i-1, i))
	}
	if got := call(t, front(t, u), "["+strings.Join(doc, ",")+"]"); got != "["+strings.Join(want, ",")+"]" {
		t.Errorf("got %s", got)
	}
	if got := srv.posts.Load(); got != 3 {
		t.Errorf("%d POSTs for 5 calls at max_batch 2, want 3", got)
	}
}

func TestRoundRobin(t *testing.T) {
	a, b := startServer(t, "a"), startServer(t, "b")
	u := provision(t, &Upstream{To: []string{a.URL, b.URL}, Select: "round_robin"})
	s := front(t, u)
	var got []string
	for range 4 {
		var answer struct{ Result string }
		_ = json.Unmarshal([]byte(call(t, s, `{"jsonrpc":"2.0","method":"whoami","id":1}`)), &answer)
		got = append(got, answer.Result)
	}
	if fmt.Sprint(got) != "[a b a b]" {
		t.Errorf("answered by %v, want [a b a b]", got)
	}
}

func TestHeadersAndRedactedName(t *testing.T) {
	srv := startServer(t, "srv")
	seen := make(chan string, 1)
	srv.setIntercept(func(_ http.ResponseWriter, r *http.Request) bool {
		select {
		case seen <- r.Header.Get("X-Api-Key"):
		default:
		}
		return false
	})
	withUser := strings.Replace(srv.URL, "http://", "http://user:secret@", 1)
	u := provision(t, &Upstream{To: []string{withUser}, Header: map[string][]string{"X-Api-Key": {"k1"}}})
	if strings.Contains(u.Name, "secret") || u.Name != srv.URL {
		t.Errorf("name %q, want the URL without its user information", u.Name)
	}
	call(t, front(t, u), `{"jsonrpc":"2.0","method":"whoami","id":1}`)
	if got := <-seen; got != "k1" {
		t.Errorf("X-Api-Key %q", got)
	}
}

func TestLocalMethodsWin(t *testing.T) {
	srv := startServer(t, "srv")
	u := provision(t, &Upstream{To: []string{srv.URL}, Methods: []string{"loc*", "whoami"}})
	s := front(t, u)
	got := call(t, s, `[{"jsonrpc":"2.0","method":"local","id":1},{"jsonrpc":"2.0","method":"whoami","id":2}]`)
	if want := `[{"jsonrpc":"2.0","result":"here","id":1},{"jsonrpc":"2.0","result":"srv","id":2}]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if srv.calls.Load() != 1 {
		t.Errorf("the upstream got %d calls, want 1", srv.calls.Load())
	}
}

func TestStripPrefix(t *testing.T) {
	srv := startServer(t, "srv")
	u := provision(t, &Upstream{To: []string{srv.URL}, Methods: []string{"up_*"}, StripPrefix: "up_"})
	s := front(t, u)
	got := call(t, s, `[{"jsonrpc":"2.0","method":"up_whoami","id":1},{"jsonrpc":"2.0","method":"up_subtract","params":[5,2],"id":2},`+
		`{"jsonrpc":"2.0","method":"up_note","params":["p"]}]`)
	if want := `[{"jsonrpc":"2.0","result":"srv","id":1},{"jsonrpc":"2.0","result":3,"id":2}]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := call(t, s, `{"jsonrpc":"2.0","method":"up_whoami","id":3}`); got != `{"jsonrpc":"2.0","result":"srv","id":3}` {
		t.Errorf("a single call: %s", got)
	}
	waitFor(t, "the notification", func() bool { return fmt.Sprint(srv.noted()) == "[p]" })
}
