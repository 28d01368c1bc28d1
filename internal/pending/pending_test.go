package pending

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestIDsByPrefix(t *testing.T) {
	for _, tt := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"1", "2", "3"}},
		{"s", []string{`"s1"`, `"s2"`, `"s3"`}},
	} {
		tab := New(tt.prefix)
		for _, want := range tt.want {
			c, err := tab.Open()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(c.ID()); got != want {
				t.Errorf("prefix %q: id %s, want %s", tt.prefix, got, want)
			}
		}
		if tab.Len() != len(tt.want) {
			t.Errorf("prefix %q: Len %d, want %d", tt.prefix, tab.Len(), len(tt.want))
		}
	}
}

func TestDeliverMatchesByID(t *testing.T) {
	tab := New("s")
	a, _ := tab.Open()
	b, _ := tab.Open()
	if !tab.Deliver([]byte(`"s2"`), []byte(`42`), nil) {
		t.Fatal("the answer to s2 found no call")
	}
	if !tab.Deliver([]byte(`"s1"`), nil, []byte(`{"code":-1,"message":"no"}`)) {
		t.Fatal("the answer to s1 found no call")
	}
	res, errObj, err := b.Wait(context.Background())
	if err != nil || string(res) != "42" || errObj != nil {
		t.Errorf("s2: %q %q %v", res, errObj, err)
	}
	res, errObj, err = a.Wait(context.Background())
	if err != nil || res != nil || string(errObj) != `{"code":-1,"message":"no"}` {
		t.Errorf("s1: %q %q %v", res, errObj, err)
	}
	a.Release()
	b.Release()
	if tab.Len() != 0 {
		t.Errorf("Len %d after every call was answered", tab.Len())
	}
}

func TestAnswerIsCopied(t *testing.T) {
	tab := New("")
	c, _ := tab.Open()
	buf := []byte(`[1,2,3]`)
	tab.Deliver([]byte("1"), buf, nil)
	copy(buf, "xxxxxxx") // the reader reuses its buffer
	res, _, _ := c.Wait(context.Background())
	if string(res) != `[1,2,3]` {
		t.Errorf("result %q changed with the reader's buffer", res)
	}
}

func TestDeliverRefusesOtherIDs(t *testing.T) {
	tab := New("s")
	tab.Open()
	for _, id := range []string{`1`, `"s0"`, `"s01"`, `"t1"`, `"s"`, `"s1x"`, `"s2"`, `null`, `"s99999999999999999999999"`, `s1`, `"s1`} {
		if tab.Deliver([]byte(id), []byte("1"), nil) {
			t.Errorf("id %s was taken for call s1", id)
		}
	}
	num := New("")
	num.Open()
	for _, id := range []string{`"1"`, `01`, `-1`, `1.0`, `18446744073709551616`, ``} {
		if num.Deliver([]byte(id), []byte("1"), nil) {
			t.Errorf("id %q was taken for call 1", id)
		}
	}
	if !tab.Deliver([]byte(`"s1"`), []byte("1"), nil) || !num.Deliver([]byte(`1`), []byte("1"), nil) {
		t.Error("the right ids were refused after the wrong ones")
	}
}

func TestSecondAnswerIsRefused(t *testing.T) {
	tab := New("")
	c, _ := tab.Open()
	if !tab.Deliver([]byte("1"), []byte("true"), nil) {
		t.Fatal("first answer refused")
	}
	if tab.Deliver([]byte("1"), []byte("false"), nil) {
		t.Error("a second answer to the same id was taken")
	}
	if res, _, _ := c.Wait(context.Background()); string(res) != "true" {
		t.Errorf("result %q, want the first answer", res)
	}
}

func TestCancelledWaitGivesUp(t *testing.T) {
	tab := New("")
	c, _ := tab.Open()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, _, err := c.Wait(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait: %v, want the deadline", err)
	}
	if tab.Deliver([]byte("1"), []byte("1"), nil) {
		t.Error("a late answer was taken by a call given up")
	}
	if tab.Len() != 0 {
		t.Errorf("Len %d after the only call was given up", tab.Len())
	}
	c.Release()
}

func TestCloseFailsEveryCall(t *testing.T) {
	tab := New("")
	reason := errors.New("connection lost")
	var calls []*Call
	for range 5 {
		c, _ := tab.Open()
		calls = append(calls, c)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(calls))
	for i, c := range calls {
		wg.Go(func() { _, _, errs[i] = c.Wait(context.Background()) })
	}
	tab.Close(reason)
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, reason) {
			t.Errorf("call %d: %v, want %v", i, err, reason)
		}
	}
	if _, err := tab.Open(); !errors.Is(err, reason) {
		t.Errorf("Open after Close: %v, want %v", err, reason)
	}
	New("").Close(nil)
	closed := New("")
	closed.Close(nil)
	if _, err := closed.Open(); !errors.Is(err, ErrClosed) {
		t.Errorf("Open after Close(nil): %v, want ErrClosed", err)
	}
}

func TestSweepAndFailID(t *testing.T) {
	tab := New("")
	a, _ := tab.Open()
	b, _ := tab.Open()
	if got := tab.Len(); got != 2 {
		t.Fatalf("Len: %d calls, want 2", got)
	}
	unknown := errors.New("outcome unknown")
	if !tab.FailID(a.ID(), unknown) {
		t.Fatal("FailID refused a waiting call")
	}
	if tab.FailID(a.ID(), unknown) {
		t.Error("FailID took a call twice")
	}
	if _, _, err := a.Wait(context.Background()); !errors.Is(err, unknown) {
		t.Errorf("failed call: %v", err)
	}
	var waiting []*Call
	tab.Sweep(func(c *Call) error {
		waiting = append(waiting, c)
		return nil
	})
	if len(waiting) != 1 || waiting[0] != b {
		t.Errorf("waiting after FailID: %v", waiting)
	}
	tab.Deliver([]byte("2"), []byte("1"), nil)
	if tab.FailID(b.ID(), unknown) {
		t.Error("FailID took a call already answered")
	}
}

func TestReleaseWithoutWait(t *testing.T) {
	tab := New("")
	c, _ := tab.Open()
	tab.Deliver([]byte("1"), []byte("1"), nil)
	c.Release() // the token must not stay behind in the pooled call
	for range 100 {
		c, _ := tab.Open()
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		if _, _, err := c.Wait(ctx); err == nil {
			t.Fatal("a fresh call returned an answer nobody sent")
		}
		cancel()
		c.Release()
	}
}

// TestRacingAnswersAndCancels runs answers, cancellations and releases at
// once: every call gets its own answer or its own error, never another's.
func TestRacingAnswersAndCancels(t *testing.T) {
	tab := New("c")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 300 {
				c, err := tab.Open()
				if err != nil {
					t.Error(err)
					return
				}
				id := string(c.ID())
				want := fmt.Sprintf(`"%s/%d"`, id[1:len(id)-1], w)
				ctx, cancel := context.WithCancel(context.Background())
				go tab.Deliver([]byte(id), []byte(want), nil)
				if i%3 == 0 {
					cancel()
				}
				res, _, err := c.Wait(ctx)
				if err == nil && string(res) != want {
					t.Errorf("call %s got %s", id, res)
				}
				cancel()
				c.Release()
			}
		})
	}
	wg.Wait()
}

func TestAKeptCallOpensAgainOrIsReleased(t *testing.T) {
	tab := New("")
	c, err := tab.Open()
	if err != nil {
		t.Fatal(err)
	}
	first := string(c.ID())
	if !tab.Deliver(c.ID(), []byte("1"), nil) {
		t.Fatal("the answer found no call")
	}
	if res, _, err := c.Wait(context.Background()); err != nil || string(res) != "1" {
		t.Fatalf("first: %s, %v", res, err)
	}
	c.Keep()
	again, err := tab.OpenAgain(c, nil, false)
	if err != nil || again != c {
		t.Fatalf("opened again as %p (kept %p): %v", again, c, err)
	}
	if string(again.ID()) == first {
		t.Fatalf("opened again with the id %s", first)
	}
	if tab.Deliver([]byte(first), []byte("2"), nil) {
		t.Fatal("an answer to the earlier id reached the call opened again")
	}
	again.Release() // never answered: given up
	if tab.Len() != 0 {
		t.Fatalf("%d calls left in the table", tab.Len())
	}
	// Kept, then released without opening again (its owner gave up).
	k, _ := tab.Open()
	tab.FailID(k.ID(), ErrClosed)
	if _, _, err := k.Wait(context.Background()); err != ErrClosed {
		t.Fatalf("failed call: %v", err)
	}
	k.Keep()
	k.Release()
}
