package serverproc

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestStartHandsOverStdoutAndStops(t *testing.T) {
	p, err := Start(context.Background(), "", []string{"GREETING=hello"}, "sh", "-c", `echo err >&2; sleep 0.1; echo "$GREETING"; exec sleep 30`)
	if err != nil {
		t.Fatal(err)
	}
	line, err := p.Line(5 * time.Second)
	if err != nil || line != "hello" {
		t.Fatalf("line %q, %v", line, err)
	}
	if rss, err := p.RSS(); err != nil || rss <= 0 {
		t.Errorf("rss %d, %v", rss, err)
	}
	start := time.Now()
	p.Stop()
	if !p.Exited() || time.Since(start) > 5*time.Second {
		t.Fatal("not stopped by SIGTERM")
	}
	if !strings.Contains(p.Log(), "err") {
		t.Errorf("log %q", p.Log())
	}
}

func TestLineReportsAnEarlyExit(t *testing.T) {
	p, err := Start(context.Background(), "", nil, "sh", "-c", "echo failing >&2; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Line(5 * time.Second); err == nil || !strings.Contains(err.Error(), "failing") {
		t.Fatalf("%v", err)
	}
}

func TestRSSOfThisProcess(t *testing.T) {
	rss, err := RSS(os.Getpid())
	if err != nil || rss < 1<<20 {
		t.Fatalf("%d, %v", rss, err)
	}
	if _, err := parseRSS("Name:\tx\nVmRSS:\t  12 MB\n"); err == nil {
		t.Error("a unit other than kB was accepted")
	}
}

func TestCPUOfThisProcess(t *testing.T) {
	start, err := CPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the count grows by 20 ms: a spell of wall-clock time gets
	// too little of the CPU where other work holds the cores.
	for end := time.Now().Add(10 * time.Second); ; {
		now, err := CPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if now-start >= 20*time.Millisecond {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%v then %v after 10 s of spinning", start, now)
		}
	}
	got, err := parseCPU("12 (a b) c) S 1 1 1 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 1 0 5 1 1")
	if err != nil || got != 2810*time.Millisecond {
		t.Errorf("%v, %v", got, err)
	}
}
