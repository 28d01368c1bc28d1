package tests

// browser_test.go loads the WebAssembly host page (wasm/web), served by
// bin/caddy running Caddyfile.example, in headless Chromium, and uses it as
// a person would: a request, the sample batch, "Ask where it runs" and the
// benchmark, in its quick mode.
//
// With BROWSER_BENCH_OUT set to a file, the benchmark runs in full and its
// numbers are written there (bench/results/browser.json is the committed
// one); BROWSER_SCREENSHOT names where the screenshot goes (by default the
// test's artifact directory: go test -artifacts keeps it).
//
//	BROWSER_BENCH_OUT=$PWD/../bench/results/browser.json \
//	BROWSER_SCREENSHOT=$PWD/../wasm/screenshot.png go test -run TestBrowser -v

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// buildWasm builds wasm/web/main.wasm with ./xcaddy.sh wasm, once per test
// binary, so the page runs the code of this checkout.
var buildWasm = sync.OnceValues(func() ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return exec.CommandContext(ctx, filepath.Join("..", "xcaddy.sh"), "wasm").CombinedOutput()
})

// wasmPage builds the WebAssembly host and starts bin/caddy serving it.
func wasmPage(t *testing.T) *exampleServer {
	t.Helper()
	s := startExample(t) // skips without bin/caddy, before the build
	if out, err := buildWasm(); err != nil {
		t.Fatalf("./xcaddy.sh wasm: %v\n%s", err, out)
	}
	return s
}

func TestBinaryServesTheWasmPage(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := wasmPage(t)
	client := newClient(true, true)
	tests := []struct {
		path, contentType string
	}{
		{"/wasm/", "text/html; charset=utf-8"},
		{"/wasm/app.js", "text/javascript; charset=utf-8"},
		{"/wasm/wasm_exec.js", "text/javascript; charset=utf-8"},
		{"/wasm/main.wasm", "application/wasm"},
	}
	for _, tt := range tests {
		res := do(t, client, http.MethodGet, s.base+tt.path, "", nil, map[string]string{"Accept-Encoding": "zstd, gzip"})
		if res.status != 200 || res.header.Get("Content-Type") != tt.contentType {
			t.Errorf("GET %s: status %d, Content-Type %q; want 200, %q", tt.path, res.status,
				res.header.Get("Content-Type"), tt.contentType)
		}
		if enc := res.header.Get("Content-Encoding"); enc != "zstd" {
			t.Errorf("GET %s: Content-Encoding %q, want zstd", tt.path, enc)
		}
	}
	res := do(t, newClient(false, false), http.MethodHead, s.base+"/wasm", "", nil, nil)
	if res.status != 200 {
		t.Errorf("HEAD /wasm (redirected to /wasm/): status %d", res.status)
	}
}

// benchRow is one row of the page's benchmark.
type benchRow struct {
	Name      string   `json:"name"`
	UsPerCall *float64 `json:"us_per_call"`
	RPCPerS   *float64 `json:"rpc_per_s"`
	Note      string   `json:"note,omitempty"`
}

// benchResults is what the page's benchmark returns (window.benchResults).
type benchResults struct {
	Date      string     `json:"date"`
	Mode      string     `json:"mode"`
	UserAgent string     `json:"userAgent"`
	Rows      []benchRow `json:"rows"`
}

// browserBench is the file BROWSER_BENCH_OUT receives.
type browserBench struct {
	Date    string     `json:"date"`
	Browser string     `json:"browser"`
	Mode    string     `json:"mode"`
	Rows    []benchRow `json:"rows"`
}

func TestBrowserHostPage(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	chromium(t)
	benchOut := os.Getenv("BROWSER_BENCH_OUT")
	limit, query := 3*time.Minute, "?quick=1"
	if benchOut != "" {
		limit, query = 6*time.Minute, ""
	}
	s := wasmPage(t)
	tab := newBrowser(t, limit)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the page's console:\n%s", tab.console.String())
		}
	})
	ctx := tab.ctx

	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/wasm/"+query)); err != nil {
		t.Fatal(err)
	}
	ready := poll[string](t, ctx, `document.body.dataset.ready`, 60*time.Second)
	if ready != "1" {
		t.Fatalf("the page did not start main.wasm: %s", text(t, ctx, "#status"))
	}

	t.Run("send", func(t *testing.T) {
		answer := click(t, ctx, "#send", func() error {
			return chromedp.Do(ctx, chromedp.SetValue("#request", subtract))
		})
		if want := `{"jsonrpc":"2.0","result":19,"id":1}`; answer != want {
			t.Errorf("answer shown %q, want %q", answer, want)
		}
	})

	t.Run("sample batch", func(t *testing.T) {
		answer := click(t, ctx, "#sample", nil)
		// The page's rpccore answers as Caddy's does.
		batch := text(t, ctx, "#request")
		want := rpc(t, newClient(true, true), s.base+"/rpc", batch)
		if answer != want.body {
			t.Errorf("the page answers the sample batch\n%s\nCaddy answers\n%s", answer, want.body)
		}
		if !strings.Contains(answer, `"result":19`) || !strings.Contains(answer, `-32601`) {
			t.Errorf("unexpected answer to the sample batch: %s", answer)
		}
	})

	t.Run("ask where it runs", func(t *testing.T) {
		answer := click(t, ctx, "#where", nil)
		if !strings.Contains(answer, `"goos":"js","goarch":"wasm"`) {
			t.Errorf("answer shown %q, want goos js and goarch wasm", answer)
		}
	})

	var results benchResults
	t.Run("benchmark", func(t *testing.T) {
		// With the Network domain on, DevTools is told of every request
		// and WebSocket frame, which slows them down: off while it runs.
		if _, err := chromedp.Call(ctx, network.Disable, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Click("#run")); err != nil {
			t.Fatal(err)
		}
		state := poll[string](t, ctx, `document.body.dataset.bench !== "running" && document.body.dataset.bench`,
			limit-30*time.Second)
		if state != "done" {
			t.Fatalf("benchmark %s: %s", state, text(t, ctx, "#progress"))
		}
		results = evaluate[benchResults](t, ctx, `window.benchResults`)
		checkBenchRows(t, s, results.Rows)
		for _, r := range results.Rows {
			if r.UsPerCall != nil && r.RPCPerS != nil {
				t.Logf("%-36s %10.3f µs/call %14.0f RPC/s", r.Name, *r.UsPerCall, *r.RPCPerS)
			} else {
				t.Logf("%-36s %s", r.Name, r.Note)
			}
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := os.Getenv("BROWSER_SCREENSHOT")
		if path == "" {
			path = filepath.Join(t.ArtifactDir(), "wasm-page.png")
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	})

	if exceptions := tab.console.Exceptions(); len(exceptions) > 0 {
		t.Errorf("uncaught exceptions in the page:\n%s", strings.Join(exceptions, "\n"))
	}

	if benchOut != "" && !t.Failed() {
		version, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		writeBrowserBench(t, benchOut, browserBench{
			Date: results.Date, Browser: version.Product, Mode: results.Mode, Rows: results.Rows,
		})
	}
}

// checkBenchRows fails the test unless every row measured a positive
// number. Only the WebSocket row may be n/a, and only when the server
// answers a WebSocket upgrade of /rpc with 405 (no WebSocket endpoint).
func checkBenchRows(t *testing.T, s *exampleServer, rows []benchRow) {
	t.Helper()
	if len(rows) != 15 {
		t.Errorf("%d rows, want the 15 of wasm/web/bench.js: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if r.UsPerCall != nil && r.RPCPerS != nil {
			us, rps := *r.UsPerCall, *r.RPCPerS
			if !(us > 0) || math.IsInf(us, 0) || !(rps > 0) || math.IsInf(rps, 0) {
				t.Errorf("row %q: %v µs per call, %v RPC/s", r.Name, us, rps)
			}
			continue
		}
		if strings.HasPrefix(r.Name, "WebSocket") && webSocketRefused(t, s.base+"/rpc") {
			t.Logf("row %q is %s: the server answers 405 to a WebSocket upgrade", r.Name, r.Note)
			continue
		}
		t.Errorf("row %q has no number: %s", r.Name, r.Note)
	}
}

// webSocketRefused reports whether url answers a WebSocket upgrade with 405.
func webSocketRefused(t *testing.T, url string) bool {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"Connection": "Upgrade", "Upgrade": "websocket",
		"Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
	} {
		req.Header.Set(k, v)
	}
	res, err := newClient(false, false).Do(req)
	if err != nil {
		t.Fatalf("WebSocket upgrade of %s: %v", url, err)
	}
	res.Body.Close()
	return res.StatusCode == http.StatusMethodNotAllowed
}

// writeBrowserBench writes the full run's numbers for bench/.
func writeBrowserBench(t *testing.T, path string, b browserBench) {
	t.Helper()
	for _, r := range b.Rows {
		if r.UsPerCall == nil && !strings.HasPrefix(r.Name, "WebSocket") {
			t.Fatalf("row %q has no number: not writing %s", r.Name, path)
		}
	}
	for i, r := range b.Rows {
		if r.UsPerCall != nil {
			us, rps := significant(*r.UsPerCall, 4), math.Round(*r.RPCPerS)
			b.Rows[i].UsPerCall, b.Rows[i].RPCPerS = &us, &rps
		}
	}
	data, err := json.MarshalIndent(b, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// significant rounds v to n significant digits.
func significant(v float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	return r
}

// click clears the answer box, runs before (when not nil), clicks sel and
// returns the answer the page then shows.
func click(t *testing.T, ctx context.Context, sel string, before func() error) string {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("answer").textContent = ""`)); err != nil {
		t.Fatal(err)
	}
	if before != nil {
		if err := before(); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(sel)); err != nil {
		t.Fatal(err)
	}
	return poll[string](t, ctx, `document.getElementById("answer").textContent`, 10*time.Second)
}

// poll waits up to limit for the expression to be truthy and returns it.
func poll[T any](t *testing.T, ctx context.Context, expression string, limit time.Duration) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Poll[T](expression, chromedp.WithPollingTimeout(limit)))
	if err != nil {
		t.Fatalf("waiting for %s: %v", expression, err)
	}
	return v
}

// evaluate returns the value of a JavaScript expression.
func evaluate[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		t.Fatalf("%s: %v", expression, err)
	}
	return v
}

// text returns the value of a form field, or the text of another element.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return evaluate[string](t, ctx, `(e => e.value ?? e.textContent)(document.querySelector(`+
		strconv.Quote(sel)+`))`)
}
