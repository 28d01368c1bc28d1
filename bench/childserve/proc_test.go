package childserve

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestStartHandsOverStdoutAndStops(t *testing.T) {
	p, err := StartProc(context.Background(), []string{"GREETING=hello"}, "sh", "-c", `echo err >&2; sleep 0.1; echo "$GREETING"; exec sleep 30`)
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
	p, err := StartProc(context.Background(), nil, "sh", "-c", "echo failing >&2; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Line(5 * time.Second); err == nil || !strings.Contains(err.Error(), "failing") {
		t.Fatalf("%v", err)
	}
}

func TestCPUOfASpinningProcess(t *testing.T) {
	p, err := StartProc(context.Background(), nil, "sh", "-c", "while :; do :; done")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	// Wait until the count reaches 20 ms: a spell of wall-clock time gets
	// too little of the CPU where other work holds the cores.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		cpu, err := p.CPU()
		if err != nil {
			t.Fatal(err)
		}
		if cpu >= 20*time.Millisecond {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%v after 10 s of spinning", cpu)
		}
	}
	if self, err := SelfCPU(); err != nil || self <= 0 {
		t.Errorf("%v, %v", self, err)
	}
}
