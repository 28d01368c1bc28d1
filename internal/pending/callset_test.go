package pending

import (
	"context"
	"errors"
	"testing"
)

// TestACallThatWaitsLongOutlivesItsSlot keeps one call waiting while many
// times a ring's worth of newer calls come and go, in a table of one shard
// and one of several: the newer calls that find its slot taken wait beside
// it, and every call gets its own answer.
func TestACallThatWaitsLongOutlivesItsSlot(t *testing.T) {
	for _, tab := range []*Table{New(""), NewSharded("", 4)} {
		old, err := tab.Open()
		if err != nil {
			t.Fatal(err)
		}
		const window = 3 * ringSize // calls waiting at once beside the old one
		var waiting []*Call
		for i := range 20 * ringSize {
			c, err := tab.Open()
			if err != nil {
				t.Fatal(err)
			}
			waiting = append(waiting, c)
			if tab.Len() != len(waiting)+1 {
				t.Fatalf("after %d opens Len is %d, want %d", i+1, tab.Len(), len(waiting)+1)
			}
			if len(waiting) < window {
				continue
			}
			first := waiting[0]
			waiting = waiting[1:]
			if !tab.Deliver(first.ID(), []byte(string(first.ID())), nil) {
				t.Fatalf("the answer to %s found no call", first.ID())
			}
			res, _, err := first.Wait(context.Background())
			if err != nil || string(res) != string(first.ID()) {
				t.Fatalf("call %s got %q, %v", first.ID(), res, err)
			}
			first.Release()
		}
		if !tab.Deliver(old.ID(), []byte(`"old"`), nil) {
			t.Fatal("the answer to the oldest call found no call")
		}
		if res, _, err := old.Wait(context.Background()); err != nil || string(res) != `"old"` {
			t.Fatalf("the oldest call got %q, %v", res, err)
		}
		old.Release()
		// The rest, some in the ring and some beside it, fail together.
		tab.Close(errors.New("gone"))
		for _, c := range waiting {
			if _, _, err := c.Wait(context.Background()); err == nil || err.Error() != "gone" {
				t.Fatalf("call %s after Close: %v", c.ID(), err)
			}
			c.Release()
		}
		if tab.Len() != 0 {
			t.Fatalf("%d calls left after Close", tab.Len())
		}
	}
}

func TestSweepReachesCallsBesideTheRing(t *testing.T) {
	tab := New("")
	var calls []*Call
	for range 2 * ringSize {
		c, err := tab.Open()
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, c)
	}
	// Keep every second call; the second half of the calls found their
	// slots taken by the first.
	n := 0
	tab.Sweep(func(c *Call) error {
		n++
		if c.n%2 == 0 {
			return errors.New("swept")
		}
		return nil
	})
	if n != len(calls) || tab.Len() != len(calls)/2 {
		t.Fatalf("sweep saw %d calls and left %d, want %d and %d", n, tab.Len(), len(calls), len(calls)/2)
	}
	for _, c := range calls {
		if c.n%2 == 0 {
			if _, _, err := c.Wait(context.Background()); err == nil || err.Error() != "swept" {
				t.Fatalf("call %d: %v, want swept", c.n, err)
			}
		} else if !tab.Deliver(c.ID(), []byte("1"), nil) {
			t.Fatalf("call %d kept by the sweep found no answer's way", c.n)
		}
	}
}

// BenchmarkRoundTrip opens, answers, waits for and releases calls with 256
// waiting at once, as a client's table holds them: the table's own cost
// per call, without the scheduler's.
func BenchmarkRoundTrip(b *testing.B) {
	tab := NewSharded("", 16)
	ctx := context.Background()
	var waiting [256]*Call
	for i := range waiting {
		waiting[i], _ = tab.Open()
	}
	answer := []byte("3")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := waiting[i]
		tab.Deliver(c.ID(), answer, nil)
		if _, _, err := c.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		c.Release()
		waiting[i], _ = tab.Open()
		i = (i + 1) % len(waiting)
	}
}
