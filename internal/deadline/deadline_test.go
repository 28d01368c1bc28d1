package deadline

import (
	"testing"
	"time"
)

func TestRenewSetsADeadlineOnlyWhenTheOneSetIsTooNear(t *testing.T) {
	var l Lazy
	const timeout = time.Hour
	before := time.Now()
	at, ok := l.Renew(timeout)
	if !ok {
		t.Fatal("the first Renew set nothing")
	}
	if lo, hi := before.Add(timeout), time.Now().Add(timeout+timeout/4); at.Before(lo) || at.After(hi) {
		t.Fatalf("deadline %v, want between %v and %v", at, lo, hi)
	}
	if _, ok := l.Renew(timeout); ok {
		t.Fatal("a deadline 1.25 timeouts away was set again")
	}
	// A longer timeout than the one the deadline was set for needs a new one.
	if at2, ok := l.Renew(2 * timeout); !ok || !at2.After(at) {
		t.Fatalf("Renew(2h) = %v, %v; want a later deadline than %v", at2, ok, at)
	}
	l.Forget()
	if _, ok := l.Renew(timeout); !ok {
		t.Fatal("Renew after Forget set nothing")
	}
}

func TestRenewSetsAgainOnceTheDeadlineComesWithinTheTimeout(t *testing.T) {
	var l Lazy
	const timeout = 40 * time.Millisecond
	if _, ok := l.Renew(timeout); !ok {
		t.Fatal("the first Renew set nothing")
	}
	// A quarter of the timeout later the deadline is less than a timeout away.
	time.Sleep(timeout/4 + 5*time.Millisecond)
	at, ok := l.Renew(timeout)
	if !ok {
		t.Fatal("a deadline less than a timeout away was kept")
	}
	if time.Until(at) < timeout {
		t.Fatalf("the new deadline is %v away, want at least %v", time.Until(at), timeout)
	}
}

func TestRenewWithoutATimeoutClearsADeadlineOnce(t *testing.T) {
	var l Lazy
	if at, ok := l.Renew(0); !ok || !at.IsZero() {
		t.Fatalf("Renew(0) on an unknown deadline = %v, %v; want the zero time, true", at, ok)
	}
	if _, ok := l.Renew(0); ok {
		t.Fatal("Renew(0) cleared a deadline that was already clear")
	}
	if _, ok := l.Renew(time.Hour); !ok {
		t.Fatal("Renew(1h) after no deadline set nothing")
	}
	if at, ok := l.Renew(0); !ok || !at.IsZero() {
		t.Fatalf("Renew(0) after a deadline = %v, %v; want the zero time, true", at, ok)
	}
}
