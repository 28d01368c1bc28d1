package tests

// chromium_test.go starts Debian's chromium, headless, for the browser tests,
// and keeps what the page writes to its console.

import (
	"context"
	"iter"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is where Debian's chromium package installs the browser
// (tests/run installs it when it is missing).
const chromiumPath = "/usr/bin/chromium"

// chromium returns the path of the browser. Without it the test is
// skipped, unless the CI variable is set: there it must be installed.
func chromium(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing (CI is set, so tests/run must have installed it): %v", chromiumPath, err)
		}
		t.Skipf("%s is not installed: apt-get install chromium (./tests/run installs it)", chromiumPath)
	}
	return chromiumPath
}

// browserTab is a tab of a headless Chromium started for one test.
type browserTab struct {
	ctx     context.Context // a chromedp context: the tab
	console *consoleLog
}

// newBrowser starts headless Chromium with a profile of its own, trusting
// any certificate (Caddy's local CA is installed nowhere), and stops it
// when the test ends or after limit, whichever comes first.
func newBrowser(t *testing.T, limit time.Duration) *browserTab {
	t.Helper()
	// Not t.TempDir: Chromium's helper processes may still write into the
	// profile while it is removed, which TempDir reports as a failure.
	profile, err := os.MkdirTemp("", "caddy-jsonrpc-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(profile) })

	output := new(syncBuffer)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.IgnoreCertErrors,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1100, 900),
		chromedp.CombinedOutput(output),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first Run starts the browser, which lives as long as ctx: the
	// limit is a timer, not a deadline on that first call.
	timer := time.AfterFunc(limit, cancelAlloc)
	t.Cleanup(func() {
		timer.Stop()
		cancel()
		cancelAlloc()
		if t.Failed() {
			t.Logf("chromium's output (D-Bus complaints left out):\n%s", withoutDBus(output.String()))
		}
	})
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent`)); err != nil {
		t.Fatalf("starting %s: %v\n%s", chromiumPath, err, withoutDBus(output.String()))
	}
	tab := &browserTab{ctx: ctx, console: new(consoleLog)}
	messages := chromedp.Console(ctx) // subscribes now, before the page loads
	go tab.console.collect(messages)
	return tab
}

// withoutDBus drops the lines where Chromium complains that it finds no
// D-Bus (there is none in a container), which are most of its output.
func withoutDBus(output string) string {
	var kept []string
	for _, line := range strings.Split(output, "\n") {
		if !strings.Contains(line, "dbus/") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// consoleLog holds what the page wrote to its console.
type consoleLog struct {
	mu         sync.Mutex
	lines      []string
	exceptions []string
}

// collect reads the tab's console messages until they end.
func (c *consoleLog) collect(messages iter.Seq2[chromedp.ConsoleMessage, error]) {
	for m, err := range messages {
		if err != nil {
			return
		}
		c.mu.Lock()
		c.lines = append(c.lines, m.String())
		if m.IsException() {
			c.exceptions = append(c.exceptions, m.String())
		}
		c.mu.Unlock()
	}
}

func (c *consoleLog) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// Exceptions returns the uncaught exceptions seen so far.
func (c *consoleLog) Exceptions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.exceptions...)
}
