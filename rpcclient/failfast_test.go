package rpcclient

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestFailFastFailsTheCallsALostConnectionHadNotWritten settles a lost
// connection by hand, with a call queued and not yet taken by a writer:
// under WithFailFast it fails with ErrDisconnected and is not written on
// the next connection, and calls fail so until that connection is made.
func TestFailFastFailsTheCallsALostConnectionHadNotWritten(t *testing.T) {
	for _, failFast := range []bool{true, false} {
		o := defaultOptions()
		o.failFast = failFast
		c, err := newClient(o)
		if err != nil {
			t.Fatal(err)
		}
		c.queue = newSendQueue()
		close(c.done) // no connection runs: Close need not wait for one
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		queued := func() *request {
			r, err := c.open(ctx, "add", nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if r.msg, err = appendRequest(r.msg[:0], "add", r.call.ID(), []any{1, 2}); err != nil {
				t.Fatal(err)
			}
			c.send(r)
			return r
		}
		r := queued()
		c.lost(errors.New("connection reset"))
		if !failFast {
			if c.calls.Len() != 1 || c.queue.msgs[0].dead {
				t.Fatal("without WithFailFast a call not yet written must wait for the next connection")
			}
			c.Close()
			continue
		}
		if _, _, err := r.call.Wait(ctx); !errors.Is(err, ErrDisconnected) {
			t.Fatalf("the call not yet written: %v, want ErrDisconnected", err)
		}
		if !c.queue.msgs[0].dead {
			t.Error("its message would still be written on the next connection")
		}
		later := queued()
		if _, _, err := later.call.Wait(ctx); !errors.Is(err, ErrDisconnected) || len(c.queue.msgs) != 1 {
			t.Fatalf("a call while the connection is lost: %v, %d messages queued", err, len(c.queue.msgs))
		}
		c.queue.setRefusing(false) // the next connection is made
		if next := queued(); next.seq == 0 || c.calls.Len() != 1 {
			t.Fatal("a call on the next connection was not queued")
		}
		c.Close()
	}
}
