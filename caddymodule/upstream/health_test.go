package upstream

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// caddyDuration converts d.
func caddyDuration(d time.Duration) caddy.Duration { return caddy.Duration(d) }

func TestHealthChecksMarkServersDownAndUp(t *testing.T) {
	srv := startServer(t, "srv")
	var failing atomic.Bool
	srv.setIntercept(func(w http.ResponseWriter, _ *http.Request) bool {
		if failing.Load() {
			http.Error(w, "broken", http.StatusInternalServerError)
			return true
		}
		return false
	})
	u := provision(t, &Upstream{To: []string{srv.URL}, HealthInterval: caddyDuration(20 * time.Millisecond),
		HealthMethod: "no_such_method"})
	tg := u.targets[0]
	time.Sleep(100 * time.Millisecond)
	if tg.isDown() {
		t.Fatal("down, though it answers the health method (-32601 counts as an answer)")
	}
	failing.Store(true)
	waitFor(t, "marked down by a failed check", tg.isDown)
	failing.Store(false)
	waitFor(t, "marked up by a passing check", func() bool { return !tg.isDown() })
}

func TestHealthChecksDialWebSocketServers(t *testing.T) {
	srv := startServer(t, "srv")
	dead := deadURL(t, "ws")
	u := provision(t, &Upstream{To: []string{dead, srv.ws()}, HealthInterval: caddyDuration(20 * time.Millisecond)})
	waitFor(t, "the dead server marked down", u.targets[0].isDown)
	waitFor(t, "the live server dialled", func() bool { return u.targets[1].client.Load() != nil })
	if u.targets[1].isDown() {
		t.Error("the live server is down")
	}
	// The live server goes away: the client's connection drops, checks
	// fail until it is back.
	srv.stop()
	waitFor(t, "the closed server marked down", u.targets[1].isDown)
}

func TestPassiveMarkExpires(t *testing.T) {
	u := provision(t, &Upstream{To: []string{deadURL(t, "http")}, FailDuration: caddyDuration(30 * time.Millisecond)})
	tg := u.targets[0]
	tg.markDown(u.failDuration(), errAllDown)
	if !tg.isDown() {
		t.Fatal("not down after markDown")
	}
	waitFor(t, "the mark to run out", func() bool { return !tg.isDown() })
	tg.markDown(0, errAllDown)
	tg.markDown(u.failDuration(), errAllDown) // a shorter mark does not shorten a health check's
	time.Sleep(50 * time.Millisecond)
	if !tg.isDown() {
		t.Error("a passive mark cut short the failed health check's")
	}
}
