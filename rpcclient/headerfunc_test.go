package rpcclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// callTagKey carries a value that WithHeaderFunc puts in a header.
type callTagKey struct{}

// tagHeader sets X-Call-Tag from the context's tag, when it has one.
func tagHeader(ctx context.Context, h http.Header) {
	if v, ok := ctx.Value(callTagKey{}).(string); ok {
		h.Set("X-Call-Tag", v)
	}
}

func TestHeaderFuncSeesEachCallsContextOverHTTP(t *testing.T) {
	srv := startHTTPServer(t, newTestRPCServer(t))
	c := dialTest(t, srv.URL, WithHeader("X-Api-Key", "k1"), WithHeaderFunc(tagHeader))
	for _, tag := range []string{"first", "second"} {
		ctx := context.WithValue(testContext(t), callTagKey{}, tag)
		if _, err := CallT[float64](ctx, c, "add", 1, 2); err != nil {
			t.Fatal(err)
		}
		if v, _ := srv.headers.Load("X-Call-Tag"); v != tag {
			t.Errorf("X-Call-Tag %v, want %q", v, tag)
		}
		if v, _ := srv.headers.Load("X-Api-Key"); v != "k1" {
			t.Errorf("X-Api-Key %v, want the fixed header as well", v)
		}
	}
}

func TestHeaderFuncSeesTheDialsContextOnTheHandshake(t *testing.T) {
	got := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("X-Call-Tag")
		w.WriteHeader(http.StatusForbidden) // the header is all this test wants
	}))
	t.Cleanup(ts.Close)
	ctx := context.WithValue(testContext(t), callTagKey{}, "dial")
	if _, err := Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http"), WithHeaderFunc(tagHeader)); err == nil {
		t.Fatal("the dial passed a handshake answered 403")
	}
	if v := <-got; v != "dial" {
		t.Errorf("X-Call-Tag %q on the handshake, want %q", v, "dial")
	}
}
