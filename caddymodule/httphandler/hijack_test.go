package httphandler

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func TestUnwrapHijackedReachesTheSocket(t *testing.T) {
	got := make(chan [2]net.Conn, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := caddyhttp.NewResponseRecorder(w, nil, nil) // as the access log wraps the writer
		nc, _, err := http.NewResponseController(rec).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		got <- [2]net.Conn{nc, unwrapHijacked(nc)}
		nc.Close()
	}))
	defer ts.Close()
	res, err := http.Get(ts.URL)
	if err == nil {
		res.Body.Close()
	}
	pair := <-got
	if _, ok := pair[0].(*net.TCPConn); ok {
		t.Skip("this Caddy does not wrap hijacked connections")
	}
	if _, ok := pair[1].(*net.TCPConn); !ok {
		t.Fatalf("unwrapped %T to %T, not the socket", pair[0], pair[1])
	}
	var plain net.Conn = &net.TCPConn{}
	if unwrapHijacked(plain) != plain {
		t.Fatal("a connection that is not wrapped was changed")
	}
}
