package tests

// http_test.go checks every row of the HTTP table of DESIGN.md ("On the
// wire") over HTTPS, with HTTP/1.1 and with HTTP/2.

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

const subtract = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`

func TestHTTPBinding(t *testing.T) {
	base := startInProcess(t)
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		header      map[string]string
		body        string
		status      int
		want        string // the body, for 200 and 204
		h1Only      bool   // HTTP/2 has no Upgrade header
	}{
		{name: "call", method: "POST", path: "/rpc", contentType: "application/json", body: subtract,
			status: 200, want: `{"jsonrpc":"2.0","result":19,"id":1}`},
		{name: "charset parameter", method: "POST", path: "/rpc", contentType: "application/json; charset=utf-8",
			body: subtract, status: 200, want: `{"jsonrpc":"2.0","result":19,"id":1}`},
		{name: "application/json-rpc", method: "POST", path: "/rpc", contentType: "application/json-rpc",
			body: subtract, status: 200, want: `{"jsonrpc":"2.0","result":19,"id":1}`},
		{name: "application/jsonrequest", method: "POST", path: "/rpc", contentType: "application/jsonrequest",
			body: subtract, status: 200, want: `{"jsonrpc":"2.0","result":19,"id":1}`},
		{name: "named params", method: "POST", path: "/rpc", contentType: "application/json",
			body:   `{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":"a"}`,
			status: 200, want: `{"jsonrpc":"2.0","result":19,"id":"a"}`},
		{name: "only notifications", method: "POST", path: "/rpc", contentType: "application/json",
			body: `{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`, status: 204, want: ""},
		{name: "batch of notifications", method: "POST", path: "/rpc", contentType: "application/json",
			body:   `[{"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`,
			status: 204, want: ""},
		{name: "parse error", method: "POST", path: "/rpc", contentType: "application/json",
			body:   `{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`,
			status: 200, want: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{name: "invalid request", method: "POST", path: "/rpc", contentType: "application/json",
			body:   `{"jsonrpc":"2.0","method":1,"params":"bar"}`,
			status: 200, want: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`},
		{name: "unknown method", method: "POST", path: "/rpc", contentType: "application/json",
			body:   `{"jsonrpc":"2.0","method":"foobar","id":"1"}`,
			status: 200, want: `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`},
		{name: "text/plain", method: "POST", path: "/rpc", contentType: "text/plain", body: subtract, status: 415},
		{name: "form", method: "POST", path: "/rpc", contentType: "application/x-www-form-urlencoded",
			body: subtract, status: 415},
		{name: "no content type", method: "POST", path: "/rpc", body: subtract, status: 415},
		{name: "GET", method: "GET", path: "/rpc", status: 405},
		{name: "GET with Upgrade", method: "GET", path: "/rpc",
			header: map[string]string{"Upgrade": "websocket", "Sec-WebSocket-Version": "13"}, status: 405,
			h1Only: true},
		{name: "PUT", method: "PUT", path: "/rpc", contentType: "application/json", body: subtract, status: 405},
		{name: "DELETE", method: "DELETE", path: "/rpc", status: 405},
		{name: "OPTIONS", method: "OPTIONS", path: "/rpc", status: 405},
		{name: "body over the limit", method: "POST", path: "/limited", contentType: "application/json",
			body:   `{"jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("a", 2000) + `"],"id":1}`,
			status: 413},
		{name: "other routes untouched", method: "GET", path: "/other", status: 200, want: "not JSON-RPC"},
	}
	for _, pc := range protocolClients() {
		t.Run(pc.name, func(t *testing.T) {
			for _, tt := range tests {
				if tt.h1Only && pc.major != 1 {
					continue
				}
				t.Run(tt.name, func(t *testing.T) {
					var body io.Reader
					if tt.body != "" {
						body = strings.NewReader(tt.body)
					}
					res := do(t, pc.client, tt.method, base+tt.path, tt.contentType, body, tt.header)
					if res.major != pc.major {
						t.Errorf("ProtoMajor %d, want %d", res.major, pc.major)
					}
					if res.status != tt.status {
						t.Fatalf("status %d, want %d (body %q)", res.status, tt.status, res.body)
					}
					switch tt.status {
					case 200, 204:
						if res.body != tt.want {
							t.Errorf("body %q\n want %q", res.body, tt.want)
						}
					case 405:
						if allow := res.header.Get("Allow"); allow != "POST" {
							t.Errorf("Allow %q, want POST", allow)
						}
					}
					if tt.status == 200 && tt.path != "/other" {
						if ct := res.header.Get("Content-Type"); ct != "application/json" {
							t.Errorf("Content-Type %q", ct)
						}
						if cl := res.header.Get("Content-Length"); cl != strconv.Itoa(len(tt.want)) {
							t.Errorf("Content-Length %q, want %d", cl, len(tt.want))
						}
					}
				})
			}
		})
	}
}

// endless is a body that never ends.
type endless struct{ sent int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	e.sent += int64(len(p))
	return len(p), nil
}

func TestOversizedBodyIsRefusedCleanly(t *testing.T) {
	base := startInProcess(t)
	for _, pc := range protocolClients() {
		t.Run(pc.name, func(t *testing.T) {
			// Declared length over the limit.
			big := bytes.Repeat([]byte(" "), 4096)
			res := do(t, pc.client, "POST", base+"/limited", "application/json", bytes.NewReader(big), nil)
			if res.status != 413 {
				t.Errorf("declared length: status %d, want 413", res.status)
			}
			// Unknown length (chunked on HTTP/1.1, a stream on HTTP/2) of a
			// body that never ends: the answer comes anyway.
			req, err := http.NewRequest("POST", base+"/limited", io.LimitReader(&endless{}, 64<<20))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			r, err := pc.client.Do(req)
			if err != nil {
				t.Fatalf("streamed body: %v", err)
			}
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode != 413 {
				t.Errorf("streamed body: status %d, want 413", r.StatusCode)
			}
			// The client can go on.
			wantAnswer(t, rpc(t, pc.client, base+"/limited", subtract), `{"jsonrpc":"2.0","result":19,"id":1}`)
		})
	}
}
