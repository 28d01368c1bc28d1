package tests

// binary_test.go drives bin/caddy, the binary ./xcaddy.sh builds, as an
// operator would: list-modules, adapt, validate, run Caddyfile.example, call
// it over HTTPS, scrape its metrics, reload it under load, stop it.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// caddyBinary returns the path of bin/caddy. Without it the test is skipped,
// unless the CI variable is set: there it must have been built.
func caddyBinary(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "bin", "caddy"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bin/caddy is missing (CI is set, so it must be built): %v", err)
		}
		t.Skip("bin/caddy is not built: run ./xcaddy.sh build (./tests/run builds it first)")
	}
	return path
}

// caddyEnv is the environment of a bin/caddy process: a home of its own.
func caddyEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+home, "XDG_CONFIG_HOME="+home)
}

// runCaddy runs bin/caddy with args to completion (at most a minute).
func runCaddy(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, caddyBinary(t), args...)
	cmd.Env = caddyEnv(t)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

func TestBinaryListModules(t *testing.T) {
	out, stderr, err := runCaddy(t, "list-modules")
	if err != nil {
		t.Fatalf("list-modules: %v\n%s", err, stderr)
	}
	for _, mod := range []string{"http.handlers.jsonrpc", "jsonrpc.services.demo"} {
		if !strings.Contains(out, mod+"\n") {
			t.Errorf("list-modules does not list %s:\n%s", mod, out)
		}
	}
}

func TestBinaryAdaptExample(t *testing.T) {
	out, stderr, err := runCaddy(t, "adapt", "--config", filepath.Join("..", "Caddyfile.example"), "--pretty")
	if err != nil {
		t.Fatalf("adapt: %v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "WARN") {
		t.Errorf("adapt warns:\n%s", stderr)
	}
	golden := filepath.Join("testdata", "Caddyfile.example.json")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("caddy adapt of Caddyfile.example differs from %s (go test -run %s -update rewrites it):\n%s",
			golden, t.Name(), out)
	}
	if !strings.Contains(out, `"handler": "jsonrpc"`) || !strings.Contains(out, `"service": "demo"`) {
		t.Errorf("no jsonrpc handler with the demo service in:\n%s", out)
	}
}

func TestBinaryValidateNamesTheBadOption(t *testing.T) {
	tests := []struct {
		name, config, adapter, want string
	}{
		{"negative max_batch", `{"apps":{"http":{"servers":{"s":{"listen":[":0"],"routes":[{"handle":[
			{"handler":"jsonrpc","services":[{"service":"demo"}],"max_batch":-1}]}]}}}}}`, "",
			"max_batch: must not be negative"},
		{"bad pattern", `{"apps":{"http":{"servers":{"s":{"listen":[":0"],"routes":[{"handle":[
			{"handler":"jsonrpc","methods":{"deny":["[x"]}}]}]}}}}}`, "", `methods deny: bad pattern`},
		{"service twice", `{"apps":{"http":{"servers":{"s":{"listen":[":0"],"routes":[{"handle":[
			{"handler":"jsonrpc","services":[{"service":"demo"},{"service":"demo"}]}]}]}}}}}`, "",
			"is registered twice: service demo is mounted twice"},
		{"unknown service", `{"apps":{"http":{"servers":{"s":{"listen":[":0"],"routes":[{"handle":[
			{"handler":"jsonrpc","services":[{"service":"nosuch"}]}]}]}}}}}`, "",
			"jsonrpc.services.nosuch"},
		{"Caddyfile size", ":0 {\n\tjsonrpc {\n\t\tmax_request_body lots\n\t}\n}\n", "caddyfile",
			`max_request_body: invalid size`},
		{"Caddyfile count", ":0 {\n\tjsonrpc {\n\t\tconcurrency 0\n\t}\n}\n", "caddyfile",
			"concurrency: must be greater than zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(file, []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"validate", "--config", file}
			if tt.adapter != "" {
				args = append(args, "--adapter", tt.adapter)
			}
			_, stderr, err := runCaddy(t, args...)
			if err == nil {
				t.Fatalf("validate accepted the config")
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("validate's error does not contain %q:\n%s", tt.want, stderr)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a process writing and a test reading.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// exampleServer is bin/caddy serving Caddyfile.example on free ports.
type exampleServer struct {
	base      string // https://localhost:<port>
	admin     string // http://localhost:<port>
	caddyfile string
	stderr    *syncBuffer
	cmd       *exec.Cmd
	exited    chan struct{} // closed once the process has exited
	exitErr   error         // how it exited, once exited is closed
}

// startExample runs bin/caddy with Caddyfile.example, its ports replaced by
// free ones, and waits until it serves. The process is stopped at the end
// of the test.
func startExample(t *testing.T) *exampleServer {
	t.Helper()
	example, err := os.ReadFile(filepath.Join("..", "Caddyfile.example"))
	if err != nil {
		t.Fatal(err)
	}
	httpsPort, httpPort, admin := freePort(t), freePort(t), freePort(t)
	caddyfile := strings.NewReplacer(
		"8443", fmt.Sprint(httpsPort),
		"8080", fmt.Sprint(httpPort),
		"localhost:2019", fmt.Sprintf("localhost:%d", admin),
	).Replace(string(example))
	s := startCaddy(t, caddyfile, fmt.Sprintf("http://localhost:%d", admin), func() error {
		res, err := newClient(false, false).Post(fmt.Sprintf("https://localhost:%d/rpc", httpsPort),
			"application/json", strings.NewReader(subtract))
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	})
	s.base = fmt.Sprintf("https://localhost:%d", httpsPort)
	return s
}

// startCaddy runs bin/caddy with caddyfile (whose admin endpoint is
// admin), from the repository's folder, and waits until ready succeeds.
// The process is stopped at the end of the test.
func startCaddy(t *testing.T, caddyfile, admin string, ready func() error) *exampleServer {
	t.Helper()
	bin := caddyBinary(t)
	file := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(file, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &exampleServer{
		admin:     admin,
		caddyfile: caddyfile,
		stderr:    new(syncBuffer),
		exited:    make(chan struct{}),
	}
	cmd := exec.Command(bin, "run", "--config", file, "--adapter", "caddyfile")
	cmd.Dir = ".." // the repository, as ./xcaddy.sh run: the example serves wasm/web from there
	s.cmd = cmd
	cmd.Env = caddyEnv(t)
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.exitErr = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.stop(t)
		if t.Failed() {
			t.Logf("bin/caddy's output:\n%s", s.stderr.String())
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := ready()
		if err == nil {
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("bin/caddy exited: %v\n%s", s.exitErr, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("bin/caddy does not serve after 30s: %v\n%s", err, s.stderr.String())
		}
	}
}

// stop asks Caddy to stop through the admin endpoint and waits for it to
// exit, killing it if it takes more than ten seconds.
func (s *exampleServer) stop(t *testing.T) {
	select {
	case <-s.exited:
		return // already exited
	default:
	}
	res, err := (&http.Client{Timeout: 5 * time.Second}).Post(s.admin+"/stop", "", nil)
	if err == nil {
		res.Body.Close()
	}
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		t.Error("bin/caddy did not stop within 10s of POST /stop; killing it")
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

func TestBinaryServesTheExample(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startExample(t)
	answer := `{"jsonrpc":"2.0","result":19,"id":1}`

	t.Run("curl", func(t *testing.T) {
		curl, err := exec.LookPath("curl")
		if err != nil {
			t.Skip("curl is not installed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, curl, "-sk", s.base+"/rpc", "-H", "Content-Type: application/json",
			"-d", subtract).Output()
		if err != nil {
			t.Fatalf("curl: %v", err)
		}
		if string(out) != answer {
			t.Errorf("curl printed %q, want %q", out, answer)
		}
	})

	for _, pc := range protocolClients() {
		t.Run(pc.name, func(t *testing.T) {
			res := rpc(t, pc.client, s.base+"/rpc", subtract)
			wantAnswer(t, res, answer)
			if res.major != pc.major {
				t.Errorf("ProtoMajor %d, want %d", res.major, pc.major)
			}
			res = do(t, pc.client, "GET", s.base+"/rpc", "", nil, nil)
			if res.status != 405 || res.header.Get("Allow") != "POST" {
				t.Errorf("GET: status %d, Allow %q", res.status, res.header.Get("Allow"))
			}
			res = do(t, pc.client, "POST", s.base+"/rpc", "text/plain", strings.NewReader(subtract), nil)
			if res.status != 415 {
				t.Errorf("text/plain: status %d", res.status)
			}
			res = rpc(t, pc.client, s.base+"/rpc", `{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`)
			if res.status != 204 || res.body != "" {
				t.Errorf("notification: status %d, body %q", res.status, res.body)
			}
		})
	}

	t.Run("access log", func(t *testing.T) {
		rpc(t, newClient(true, true), s.base+"/rpc", `[{"jsonrpc":"2.0","method":"get_data","id":"log-test"},{"jsonrpc":"2.0","method":"nosuch","id":2}]`)
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			for _, line := range strings.Split(s.stderr.String(), "\n") {
				if !strings.Contains(line, `"http.log.access`) || !strings.Contains(line, `"jsonrpc_method":"get_data"`) {
					continue
				}
				var entry map[string]any
				if err := json.Unmarshal([]byte(line), &entry); err != nil {
					continue
				}
				if entry["jsonrpc_id"] == `"log-test"` && entry["jsonrpc_batch_size"] == float64(2) &&
					entry["jsonrpc_error_code"] == float64(-32601) {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no access log entry with the placeholders in:\n%s", s.stderr.String())
			}
		}
	})

	t.Run("metrics", func(t *testing.T) {
		wantMetrics(t, scrape(t, s.admin),
			`caddy_jsonrpc_calls_total{method="subtract",outcome="ok"}`,
			`caddy_jsonrpc_call_duration_seconds_count{method="subtract"}`,
			`caddy_jsonrpc_batch_size_count 1`,
			`caddy_jsonrpc_requests_total{outcome="ok"}`,
		)
	})

	t.Run("reload under load", func(t *testing.T) {
		// HTTP/2 only: the client learns from GOAWAY which calls the old
		// server did not take, and sends them again. (TestReloadLosesNoCallInFlight
		// covers HTTP/1.1, where it can tell a call refused before Caddy read
		// it from one lost in flight.)
		load := &reloadLoad{
			url:     s.base + "/rpc",
			clients: []*http.Client{newClient(true, true)},
			workers: 8,
			call: func(id int) (string, string) {
				return fmt.Sprintf(`{"jsonrpc":"2.0","method":"subtract","params":[%d,1],"id":%d}`, id+1, id),
					fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, id, id)
			},
		}
		answered, spanning, _ := load.run(t, func() {
			for range 2 {
				reload(t, s.admin, s.caddyfile)
				time.Sleep(150 * time.Millisecond)
			}
		})
		t.Logf("%d calls answered, %d of them in flight across the reloads", answered, spanning)
		if answered == 0 || spanning == 0 {
			t.Errorf("%d calls answered, %d across a reload: the test proved nothing", answered, spanning)
		}
	})
}
