package httphandler

import (
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestCallKeepIDCopies(t *testing.T) {
	for _, id := range []string{`1`, `"abc"`, `"` + strings.Repeat("z", 50) + `"`} {
		src := []byte(id)
		c := &call{sum: rpccore.Summary{ID: src}}
		c.keepID()
		for i := range src {
			src[i] = '#' // the request buffer is reused
		}
		if got, _ := c.placeholder(PlaceholderID); got != id {
			t.Errorf("id %q after reuse of the buffer, want %q", got, id)
		}
	}
}

func TestCallPlaceholderUnknownKeys(t *testing.T) {
	c := &call{sum: rpccore.Summary{Method: "m"}}
	for _, key := range []string{"http.jsonrpc", "http.jsonrpc.other", "http.request.method", "jsonrpc.method"} {
		if v, ok := c.placeholder(key); ok {
			t.Errorf("%s = %v, want not found", key, v)
		}
	}
	if v, ok := c.placeholder(PlaceholderID); !ok || v != "" {
		t.Errorf("id of a notification = %#v, %v", v, ok)
	}
}
