package tests

// observe_test.go checks what an operator sees: the placeholders in the
// access log, a panic in Caddy's log, the metrics on the admin endpoint.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// waitForLogEntry polls a JSON log file until match accepts an entry.
func waitForLogEntry(t *testing.T, path string, match func(entry map[string]any) bool) map[string]any {
	t.Helper()
	var data []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		data, _ = os.ReadFile(path)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var entry map[string]any
			if json.Unmarshal(sc.Bytes(), &entry) == nil && match(entry) {
				return entry
			}
		}
	}
	t.Fatalf("no matching entry in %s:\n%s", path, data)
	return nil
}

func TestPlaceholdersReachTheAccessLog(t *testing.T) {
	base := startInProcess(t)
	client := newClient(true, true)
	marker := fmt.Sprintf(`"marker-%d"`, time.Now().UnixNano())
	tests := []struct {
		name, req            string
		method, id           string
		batchSize, errorCode float64
	}{
		{"call", `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":` + marker + `}`,
			"subtract", marker, 0, 0},
		{"batch", `[{"jsonrpc":"2.0","method":"sum","params":[1],"id":` + marker + `},` +
			`{"jsonrpc":"2.0","method":"nosuch","id":2},{"jsonrpc":"2.0","method":"update"}]`,
			"sum", marker, 3, -32601},
		{"invalid params", `{"jsonrpc":"2.0","method":"StringMe","params":[1],"id":` + marker + `}`,
			"StringMe", marker, 0, -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rpc(t, client, base+"/rpc", tt.req)
			entry := waitForLogEntry(t, logFile("access.log"), func(e map[string]any) bool {
				return e["jsonrpc_id"] == tt.id && e["jsonrpc_method"] == tt.method
			})
			if entry["jsonrpc_batch_size"] != tt.batchSize || entry["jsonrpc_error_code"] != tt.errorCode {
				t.Errorf("entry %v: batch size %v, error code %v, want %v, %v", entry,
					entry["jsonrpc_batch_size"], entry["jsonrpc_error_code"], tt.batchSize, tt.errorCode)
			}
			if entry["status"] != float64(200) {
				t.Errorf("entry status %v", entry["status"])
			}
		})
	}
}

func TestPanicIsLogged(t *testing.T) {
	base := startInProcess(t)
	client := newClient(true, true)
	wantAnswer(t, rpc(t, client, base+"/rpc", `{"jsonrpc":"2.0","method":"panic","id":1}`),
		`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}`)
	entry := waitForLogEntry(t, logFile("caddy.log"), func(e map[string]any) bool {
		return e["msg"] == "method panicked" && e["method"] == "panic"
	})
	if entry["level"] != "error" || entry["panic"] != "test panic" {
		t.Errorf("log entry %v", entry)
	}
	// Caddy lives on.
	wantAnswer(t, rpc(t, client, base+"/rpc", subtract), `{"jsonrpc":"2.0","result":19,"id":1}`)
}

// scrape returns the admin endpoint's metrics.
func scrape(t *testing.T, admin string) string {
	t.Helper()
	c := &http.Client{Timeout: requestTimeout}
	res, err := c.Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		t.Fatalf("/metrics: status %d", res.StatusCode)
	}
	return string(b)
}

// wantMetrics fails the test unless every line is in the scrape.
func wantMetrics(t *testing.T, scraped string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(scraped, l) {
			t.Errorf("metrics lack %q", l)
		}
	}
}

func TestMetricsOnTheAdminEndpoint(t *testing.T) {
	base := startInProcess(t)
	client := newClient(true, true)
	rpc(t, client, base+"/rpc", subtract)
	rpc(t, client, base+"/rpc", `[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"add","params":["x"],"id":2}]`)
	rpc(t, client, base+"/rpc", `{"jsonrpc":"2.0","method":"no_such_method_in_metrics","id":1}`)
	scraped := scrape(t, fmt.Sprintf("http://localhost:%d", adminPort))
	wantMetrics(t, scraped,
		`caddy_jsonrpc_calls_total{method="subtract",outcome="ok"}`,
		`caddy_jsonrpc_calls_total{method="add",outcome="invalid_params"}`,
		`caddy_jsonrpc_call_duration_seconds_bucket{method="subtract",le="`,
		`caddy_jsonrpc_batch_size_bucket{le="2"}`,
		`caddy_jsonrpc_requests_total{outcome="method_not_found"}`,
	)
	if strings.Contains(scraped, "no_such_method_in_metrics") {
		t.Error("an unknown method became a label value")
	}
}

func TestWebSocketUpgradeIsLoggedWhenItOpens(t *testing.T) {
	base := startInProcess(t)
	marker := fmt.Sprintf("conn-%d", time.Now().UnixNano())
	c := mustDial(t, "wss"+strings.TrimPrefix(base, "https")+"/rpc?"+marker)
	// The handler returns once the connection is upgraded, so the access
	// log has the request while the connection is still open.
	entry := waitForLogEntry(t, logFile("access.log"), func(e map[string]any) bool {
		req, _ := e["request"].(map[string]any)
		uri, _ := req["uri"].(string)
		return strings.HasSuffix(uri, marker)
	})
	if entry["status"] != float64(http.StatusSwitchingProtocols) {
		t.Errorf("logged status %v, want 101", entry["status"])
	}
	wsSend(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	if a := wsRecv(t, c); a["result"] != float64(19) {
		t.Fatalf("answer after the upgrade was logged: %v", a)
	}
}
