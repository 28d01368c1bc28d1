package tests

// reload_test.go reloads Caddy's configuration while calls are in flight and
// checks that every one of them gets its answer.

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/tests/testsvc"
)

// reload POSTs a Caddyfile to the admin endpoint's /load, forcing a reload
// even when it is unchanged.
func reload(t *testing.T, admin, caddyfile string) {
	t.Helper()
	req, err := http.NewRequest("POST", admin+"/load", strings.NewReader(caddyfile))
	if err != nil {
		t.Error(err)
		return
	}
	req.Header.Set("Content-Type", "text/caddyfile")
	req.Header.Set("Cache-Control", "must-revalidate")
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Errorf("reload: %v", err)
		return
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Errorf("reload: status %d: %s", res.StatusCode, b)
	}
}

// reloadLoad is calls sent without pause while the configuration reloads.
type reloadLoad struct {
	url     string
	clients []*http.Client
	workers int // per client
	// call is the document of call id and its answer.
	call func(id int) (req, want string)
	// reached reports whether the server ran call id. A call that failed
	// without reaching the server (its connection was refused or reset
	// before Caddy read it) is not a call lost in flight. When reached is
	// nil, every failure counts as lost.
	reached func(id int) bool
}

// run sends the calls until reloads (run meanwhile) are done, and reports
// every call lost. It returns the number of calls answered, how many of
// them were in flight while the reloads happened, and how many failed
// without reaching the server.
func (l *reloadLoad) run(t *testing.T, reloads func()) (answered, spanning, refused int64) {
	t.Helper()
	var (
		wg        sync.WaitGroup
		stop      = make(chan struct{})
		nextID    atomic.Int64
		reloading atomic.Int64 // odd while the reloads run
		failures  = make(chan string, 100)
	)
	fail := func(msg string) {
		select {
		case failures <- msg:
		default:
		}
	}
	for _, c := range l.clients {
		for range l.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					id := int(nextID.Add(1))
					req, want := l.call(id)
					phase := reloading.Load()
					res, err := c.Post(l.url, "application/json", strings.NewReader(req))
					if err != nil {
						if l.reached != nil && !l.reached(id) {
							atomic.AddInt64(&refused, 1)
							continue
						}
						fail(fmt.Sprintf("call %d lost: %v", id, err))
						continue
					}
					body, err := io.ReadAll(res.Body)
					res.Body.Close()
					if err != nil || res.StatusCode != 200 || string(body) != want {
						fail(fmt.Sprintf("call %d: status %d, body %q, error %v, want %s", id, res.StatusCode,
							body, err, want))
						continue
					}
					atomic.AddInt64(&answered, 1)
					if phase != reloading.Load() {
						atomic.AddInt64(&spanning, 1)
					}
				}
			}()
		}
	}
	time.Sleep(300 * time.Millisecond)
	reloading.Add(1)
	reloads()
	reloading.Add(1)
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	return answered, spanning, refused
}

func TestReloadLosesNoCallInFlight(t *testing.T) {
	base := startInProcess(t)
	admin := fmt.Sprintf("http://localhost:%d", adminPort)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	load := &reloadLoad{
		url: base + "/rpc",
		// HTTP/2 on kept-alive connections, HTTP/1.1 on kept-alive ones and
		// on a connection per call.
		clients: []*http.Client{newClient(true, true), newClient(false, true), newClient(false, false)},
		workers: 6,
		call: func(id int) (string, string) {
			return fmt.Sprintf(`{"jsonrpc":"2.0","method":"sleep","params":[100,"%s-%d"],"id":%d}`, run, id, id),
				fmt.Sprintf(`{"jsonrpc":"2.0","result":100,"id":%d}`, id)
		},
		reached: func(id int) bool { return testsvc.Started(fmt.Sprintf("%s-%d", run, id)) },
	}
	answered, spanning, refused := load.run(t, func() {
		for range 2 {
			reload(t, admin, inProcess.caddyfile)
			time.Sleep(150 * time.Millisecond)
		}
	})
	t.Logf("%d calls answered, %d of them in flight across the reloads; %d refused before reaching Caddy",
		answered, spanning, refused)
	if answered == 0 || spanning == 0 {
		t.Errorf("%d calls answered, %d across a reload: the test proved nothing", answered, spanning)
	}
}
