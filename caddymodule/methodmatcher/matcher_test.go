package methodmatcher

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
)

func newMatcher(t *testing.T, maxBody int64, patterns ...string) *MatchMethod {
	t.Helper()
	m := &MatchMethod{Methods: patterns, MaxBody: maxBody}
	if err := m.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMatcherMatchesEveryCallOfTheDocument(t *testing.T) {
	m := newMatcher(t, 0, "eth_get*", "net_version", "web3_?lientVersion", "debug_[st]*")
	tests := []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","method":"eth_getBalance","params":[],"id":1}`, true},
		{`{"jsonrpc":"2.0","method":"net_version","id":1}`, true},
		{`{"jsonrpc":"2.0","method":"web3_clientVersion","id":1}`, true},
		{`{"jsonrpc":"2.0","method":"debug_traceCall","id":1}`, true},
		{`{"jsonrpc":"2.0","method":"debug_xray","id":1}`, false},
		{`{"jsonrpc":"2.0","method":"eth_sendRawTransaction","id":1}`, false},
		{`{"jsonrpc":"2.0","method":"eth_get\u0042alance","id":1}`, true}, // escapes are read
		{`{"jsonrpc":"2.0","method":"eth_get/x","id":1}`, false},
		{`[{"jsonrpc":"2.0","method":"eth_getBalance","id":1},{"jsonrpc":"2.0","method":"net_version"}]`, true},
		{`[{"jsonrpc":"2.0","method":"eth_getBalance","id":1},{"jsonrpc":"2.0","method":"eth_sendRawTransaction","id":2}]`, false},
		{`[{"jsonrpc":"2.0","method":"eth_getBalance","id":1},{"id":2}]`, false},
		{`[{"jsonrpc":"2.0","method":"eth_getBalance","id":1},1]`, false},
		{`[]`, false},
		{`{"jsonrpc":"2.0","method":"eth_getBalance","id":1`, false},
		// A proxy and the server must not read two methods out of one document.
		{`{"jsonrpc":"2.0","method":"eth_getBalance","method":"eth_sendRawTransaction","id":1}`, false},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"eth_getBalance\",\"params\":[\"\xff\"],\"id\":1}", false},
	}
	for _, tt := range tests {
		if got := m.Match(moduletest.Request(tt.body)); got != tt.want {
			t.Errorf("%s: matched %v, want %v", tt.body, got, tt.want)
		}
	}
}

func TestMatcherLeavesTheBodyReadable(t *testing.T) {
	const call = `{"jsonrpc":"2.0","method":"eth_sendRawTransaction","id":1}`
	m := newMatcher(t, 64, "eth_get*")
	padded := `{"jsonrpc":"2.0","method":"eth_getBalance","params":["` + strings.Repeat(" ", 100) + `"],"id":1}`
	for _, body := range []string{call, padded} {
		r := moduletest.Request(body)
		if m.Match(r) {
			t.Errorf("%.40s...: must not match (not a read, or over max_body)", body)
		}
		if got, _ := io.ReadAll(r.Body); string(got) != body {
			t.Errorf("the body after the matcher is %q, want it whole", got)
		}
	}
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "/rpc?"+call, nil),
		func() *http.Request {
			r := moduletest.Request(call)
			r.Header.Set("Content-Type", "text/plain")
			return r
		}(),
	} {
		if newMatcher(t, 0, "*").Match(r) {
			t.Errorf("%s %s: only JSON POSTs match", r.Method, r.Header.Get("Content-Type"))
		}
	}
}

func TestMatcherCaddyfile(t *testing.T) {
	var m MatchMethod
	d := caddyfile.NewTestDispenser("jsonrpc_method eth_get* net_* {\n max_body 1MiB\n}\njsonrpc_method web3_*")
	if err := m.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Methods, " ") != "eth_get* net_* web3_*" || m.MaxBody != 1<<20 {
		t.Fatalf("got %+v", m)
	}
	for input, want := range map[string]string{
		"jsonrpc_method":                     "want at least one method pattern",
		"jsonrpc_method a {\n bogus 1\n}":    `unrecognized jsonrpc_method option "bogus"`,
		"jsonrpc_method a {\n max_body x\n}": "max_body",
	} {
		var m MatchMethod
		if err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", input, err, want)
		}
	}
	bad := &MatchMethod{Methods: []string{"[bad"}}
	if err := bad.Provision(caddy.Context{}); err == nil || !strings.Contains(err.Error(), `bad pattern "[bad"`) {
		t.Errorf("a bad pattern: %v", err)
	}
}

func TestMatcherInCELExpressions(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	expr := &caddyhttp.MatchExpression{Expr: `jsonrpc_method('eth_get*', 'net_*') && method('POST')`}
	if err := expr.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","method":"net_version","id":1}`:            true,
		`{"jsonrpc":"2.0","method":"eth_sendRawTransaction","id":1}`: false,
	} {
		got, err := expr.MatchWithError(moduletest.Request(body))
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", body, got, err, want)
		}
	}
}

func TestHasSlash(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefg", "abcdefgh", "abcdefghijklmnopq", "\x2e\x30\xaf\x2f"} {
		for i := 0; i <= len(s); i++ {
			b := []byte(s[:i] + "/" + s[i:])
			if !hasSlash(b) {
				t.Errorf("hasSlash(%q) = false", b)
			}
		}
		if hasSlash([]byte(s)) != strings.Contains(s, "/") {
			t.Errorf("hasSlash(%q) wrong", s)
		}
	}
}
