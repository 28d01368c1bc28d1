package httphandler

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// serve runs r through h with a replacer in its context, as Caddy does, and
// returns the recorded response and the handler's error.
func serve(t *testing.T, h *Handler, r *http.Request) (*httptest.ResponseRecorder, *caddy.Replacer, error) {
	t.Helper()
	repl := caddy.NewReplacer()
	r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
	rec := httptest.NewRecorder()
	err := h.ServeHTTP(rec, r, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
		t.Error("the handler called next")
		return nil
	}))
	return rec, repl, err
}

// post sends body as a JSON POST and fails the test if the handler errs.
func post(t *testing.T, h *Handler, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	rec, _, err := serve(t, h, r)
	if err != nil {
		t.Fatalf("ServeHTTP: %v", err)
	}
	return rec
}

// statusOf is the HTTP status of a handler error, 0 for none.
func statusOf(err error) int {
	if err == nil {
		return 0
	}
	var he caddyhttp.HandlerError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	return -1
}

func TestServeHTTPTable(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), MaxRequestBody: 200})
	call := `{"jsonrpc":"2.0","method":"echo","params":["hi"],"id":1}`
	answer := `{"jsonrpc":"2.0","result":"hi","id":1}`
	tests := []struct {
		name        string
		method      string
		contentType string
		header      map[string]string
		body        string
		status      int    // recorded status, when the handler answers
		errStatus   int    // status of the handler's error, when it fails
		want        string // body, when the handler answers
	}{
		{name: "call", method: "POST", contentType: "application/json", body: call, status: 200, want: answer},
		{name: "charset parameter", method: "POST", contentType: "application/json; charset=utf-8", body: call,
			status: 200, want: answer},
		{name: "media type in upper case", method: "POST", contentType: "Application/JSON", body: call,
			status: 200, want: answer},
		{name: "application/json-rpc", method: "POST", contentType: "application/json-rpc", body: call,
			status: 200, want: answer},
		{name: "batch", method: "POST", contentType: "application/json",
			body: `[` + call + `,{"jsonrpc":"2.0","method":"echo","params":["b"]}]`, status: 200, want: `[` + answer + `]`},
		{name: "only notifications", method: "POST", contentType: "application/json",
			body: `{"jsonrpc":"2.0","method":"echo","params":["hi"]}`, status: 204, want: ""},
		{name: "batch of notifications", method: "POST", contentType: "application/json",
			body:   `[{"jsonrpc":"2.0","method":"echo","params":["a"]},{"jsonrpc":"2.0","method":"nosuch"}]`,
			status: 204, want: ""},
		{name: "parse error", method: "POST", contentType: "application/json", body: `{"jsonrpc":`, status: 200,
			want: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{name: "invalid request", method: "POST", contentType: "application/json", body: `[]`, status: 200,
			want: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`},
		{name: "empty body", method: "POST", contentType: "application/json", body: ``, status: 200,
			want: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{name: "text/plain", method: "POST", contentType: "text/plain", body: call, errStatus: 415},
		{name: "no content type", method: "POST", body: call, errStatus: 415},
		{name: "json suffix is not enough", method: "POST", contentType: "application/problem+json", body: call,
			errStatus: 415},
		{name: "GET", method: "GET", errStatus: 405},
		{name: "PUT", method: "PUT", contentType: "application/json", body: call, errStatus: 405},
		{name: "HEAD", method: "HEAD", errStatus: 405},
		{name: "OPTIONS", method: "OPTIONS", errStatus: 405},
		{name: "body over the limit", method: "POST", contentType: "application/json",
			body:      `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("a", 200) + `"],"id":1}`,
			errStatus: 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/rpc", strings.NewReader(tt.body))
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			rec, _, err := serve(t, h, r)
			if got := statusOf(err); got != tt.errStatus {
				t.Fatalf("error %v (status %d), want status %d", err, got, tt.errStatus)
			}
			if tt.errStatus == 405 && rec.Header().Get("Allow") != "POST" {
				t.Errorf("Allow: %q, want POST", rec.Header().Get("Allow"))
			}
			if tt.errStatus != 0 {
				return
			}
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			if rec.Body.String() != tt.want {
				t.Errorf("body %s, want %s", rec.Body, tt.want)
			}
			if tt.status == 200 {
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				if cl := rec.Header().Get("Content-Length"); cl != itoa(len(tt.want)) {
					t.Errorf("Content-Length %q, want %d", cl, len(tt.want))
				}
			}
		})
	}
}

// countingReader counts the bytes read from an endless body.
type countingReader struct{ n int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	c.n += int64(len(p))
	return len(p), nil
}

func TestServeHTTPReadsNoFurtherThanTheLimit(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), MaxRequestBody: 10000})
	body := &countingReader{}
	r := httptest.NewRequest(http.MethodPost, "/rpc", body)
	r.ContentLength = -1 // chunked: the size is not known up front
	r.Header.Set("Content-Type", "application/json")
	_, _, err := serve(t, h, r)
	if statusOf(err) != 413 {
		t.Fatalf("error %v, want a 413", err)
	}
	if body.n > 10001 {
		t.Errorf("read %d bytes of a body limited to 10000", body.n)
	}
}

func TestServeHTTPDeclaredLengthOverTheLimitReadsNothing(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), MaxRequestBody: 10})
	body := &countingReader{}
	r := httptest.NewRequest(http.MethodPost, "/rpc", body)
	r.ContentLength = 11
	r.Header.Set("Content-Type", "application/json")
	if _, _, err := serve(t, h, r); statusOf(err) != 413 {
		t.Fatalf("error %v, want a 413", err)
	}
	if body.n != 0 {
		t.Errorf("read %d bytes", body.n)
	}
}

func TestServeHTTPRequestInfo(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":1}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Test", "yes")
	r.RemoteAddr = "192.0.2.1:1234"
	rec, _, err := serve(t, h, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","result":["http","192.0.2.1:1234","yes"],"id":1}`; rec.Body.String() != want {
		t.Errorf("answer %s, want %s", rec.Body, want)
	}
}

func TestServeHTTPClientGoneCancelsTheCall(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/rpc",
		strings.NewReader(`{"jsonrpc":"2.0","method":"wait","id":1}`))
	r.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = serve(t, h, r)
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the method saw %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the method's context was not cancelled")
	}
	<-done
}

func TestServeHTTPPlaceholders(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	tests := []struct {
		name, body           string
		method, id           string
		batchSize, errorCode int
	}{
		{"call", `{"jsonrpc":"2.0","method":"echo","params":["x"],"id":"abc"}`, "echo", `"abc"`, 0, 0},
		{"notification", `{"jsonrpc":"2.0","method":"echo","params":["x"]}`, "echo", "", 0, 0},
		{"unknown method", `{"jsonrpc":"2.0","method":"nosuch","id":3}`, "nosuch", "3", 0, -32601},
		{"batch", `[{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1},{"jsonrpc":"2.0","method":"boom","id":2}]`,
			"echo", "1", 2, -32603},
		{"parse error", `{`, "", "", 0, -32700},
		{"long id", `{"jsonrpc":"2.0","method":"echo","params":["x"],"id":"` + strings.Repeat("i", 40) + `"}`,
			"echo", `"` + strings.Repeat("i", 40) + `"`, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/json")
			_, repl, err := serve(t, h, r)
			if err != nil {
				t.Fatal(err)
			}
			for key, want := range map[string]any{
				PlaceholderMethod: tt.method, PlaceholderID: tt.id,
				PlaceholderBatchSize: tt.batchSize, PlaceholderErrorCode: tt.errorCode,
			} {
				got, ok := repl.Get(key)
				if !ok || got != want {
					t.Errorf("{%s} = %#v (%v), want %#v", key, got, ok, want)
				}
			}
			if s := repl.ReplaceAll("{http.jsonrpc.method}/{http.jsonrpc.error_code}", ""); s !=
				tt.method+"/"+itoa(tt.errorCode) {
				t.Errorf("ReplaceAll: %q", s)
			}
		})
	}
}

func TestServeHTTPBodyReadError(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test")})
	r := httptest.NewRequest(http.MethodPost, "/rpc", io.MultiReader(strings.NewReader("{"), errReader{}))
	r.Header.Set("Content-Type", "application/json")
	if _, _, err := serve(t, h, r); statusOf(err) != 400 {
		t.Errorf("error %v, want a 400", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func itoa(n int) string { return strconv.Itoa(n) }
