package tests

// matcher_test.go routes JSON-RPC by method with Caddy's own reverse_proxy
// and the jsonrpc_method matcher, in front of two upstream bin/caddy
// processes.

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// upstreamCaddyfile serves the demo over plain HTTP and names itself in a
// response header.
const upstreamCaddyfile = `{
	admin localhost:ADMIN
	default_bind 127.0.0.1
	auto_https off
}

http://127.0.0.1:PORT {
	header X-Upstream NAME
	jsonrpc /rpc {
		service demo
	}
}
`

// frontCaddyfile routes reads to one upstream and everything else to the
// other.
const frontCaddyfile = `{
	admin localhost:ADMIN
	default_bind 127.0.0.1
	auto_https off
}

http://127.0.0.1:PORT {
	@reads jsonrpc_method get_data sub* {
		max_body 64KiB
	}
	@cel expression jsonrpc_method('notify_*')
	route /rpc {
		reverse_proxy @reads 127.0.0.1:READS
		reverse_proxy @cel 127.0.0.1:READS
		reverse_proxy 127.0.0.1:WRITES
	}
}
`

// startPlainCaddy starts bin/caddy from a template with ADMIN and PORT
// filled in, and returns its base URL.
func startPlainCaddy(t *testing.T, template string, fill map[string]string) string {
	t.Helper()
	admin, port := freePort(t), freePort(t)
	pairs := []string{"ADMIN", fmt.Sprint(admin), "PORT", fmt.Sprint(port)}
	for k, v := range fill {
		pairs = append(pairs, k, v)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	startCaddy(t, strings.NewReplacer(pairs...).Replace(template), fmt.Sprintf("http://localhost:%d", admin), func() error {
		res, err := http.Get(base + "/")
		if err == nil {
			res.Body.Close()
		}
		return err
	})
	return base
}

func TestMatcherRoutesByMethodThroughReverseProxy(t *testing.T) {
	caddyBinary(t)
	reads := startPlainCaddy(t, upstreamCaddyfile, map[string]string{"NAME": "reads"})
	writes := startPlainCaddy(t, upstreamCaddyfile, map[string]string{"NAME": "writes"})
	front := startPlainCaddy(t, frontCaddyfile, map[string]string{
		"READS": strings.TrimPrefix(reads, "http://127.0.0.1:"), "WRITES": strings.TrimPrefix(writes, "http://127.0.0.1:")})
	post := func(body string) (upstream, answer string) {
		t.Helper()
		res, err := http.Post(front+"/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.Header.Get("X-Upstream"), string(b)
	}
	tests := []struct {
		name, body, upstream, answer string
	}{
		{"a read", `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, "reads",
			`{"jsonrpc":"2.0","result":19,"id":1}`},
		{"a batch of reads", `[{"jsonrpc":"2.0","method":"get_data","id":1},{"jsonrpc":"2.0","method":"subtract","params":[1,1],"id":2}]`,
			"reads", `[{"jsonrpc":"2.0","result":["hello",5],"id":1},{"jsonrpc":"2.0","result":0,"id":2}]`},
		{"a batch with one write", `[{"jsonrpc":"2.0","method":"get_data","id":1},{"jsonrpc":"2.0","method":"update","params":[1],"id":2}]`,
			"writes", `[{"jsonrpc":"2.0","result":["hello",5],"id":1},{"jsonrpc":"2.0","result":null,"id":2}]`},
		{"a write", `{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":3}`, "writes", `{"jsonrpc":"2.0","result":3,"id":3}`},
		{"by CEL", `{"jsonrpc":"2.0","method":"notify_hello","params":[7],"id":4}`, "reads", ""},
		{"bad JSON fails closed", `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1`, "writes",
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"two methods in one object fail closed", `{"jsonrpc":"2.0","method":"subtract","method":"update","params":[1,1],"id":1}`,
			"writes", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"a body padded past max_body fails closed and reaches the next handler whole",
			`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}` + strings.Repeat(" ", 70<<10), "writes",
			`{"jsonrpc":"2.0","result":19,"id":1}`},
	}
	for _, tt := range tests {
		upstream, answer := post(tt.body)
		if upstream != tt.upstream || (tt.answer != "" && !strings.HasPrefix(answer, tt.answer)) {
			t.Errorf("%s: answered by %q with %s; want %q with %s", tt.name, upstream, answer, tt.upstream, tt.answer)
		}
	}
}
