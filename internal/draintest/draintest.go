// Package draintest checks, for the tests of every transport, that a
// server closing a connection answers each call its client sent: with a
// result, or with -32001 "Server going away" ("not run" for a call that did
// not run, "cancelled" for one cut short at the end of the grace).
package draintest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Ran records the tags of the calls that started.
type Ran struct{ m sync.Map }

// Has reports whether the call tagged tag started.
func (r *Ran) Has(tag int) bool { _, ok := r.m.Load(tag); return ok }

// Methods are two Blocking methods that record their tag as they start:
// sleep(ms, tag) waits ms or until it is cancelled; stubborn(ms, tag)
// waits ms whatever happens. Both return tag.
func Methods(ran *Ran) rpccore.Methods {
	return rpccore.Methods{
		"sleep": rpccore.Func2(func(ctx context.Context, ms, tag int) (int, error) {
			ran.m.Store(tag, true)
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return tag, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}, "ms", "tag").Blocking(),
		"stubborn": rpccore.Func2(func(_ context.Context, ms, tag int) (int, error) {
			ran.m.Store(tag, true)
			time.Sleep(time.Duration(ms) * time.Millisecond)
			return tag, nil
		}, "ms", "tag").Blocking(),
	}
}

// Case is a load of blocking calls a test closes a connection under.
type Case struct {
	Name   string
	Method string // of Methods
	Ms     int
	// Cancels says the calls outlast a grace of 150ms, so that some are
	// answered cancelled.
	Cancels bool
}

// Cases are calls that end when they are cancelled, and calls that
// outlast the grace.
var Cases = []Case{
	{Name: "calls that end when cancelled", Method: "sleep", Ms: 40},
	{Name: "calls that outlast the grace", Method: "stubborn", Ms: 400, Cancels: true},
}

// CheckClosedInFlight checks Check's counts for a close that came with
// calls in flight: some not run, and some cancelled when c cancels.
func CheckClosedInFlight(t testing.TB, n Counts, c Case) {
	t.Helper()
	if n.NotRun == 0 {
		t.Error("no call was answered not run: the close came after every call had run")
	}
	if c.Cancels && n.Cancelled == 0 {
		t.Error("no call outlasting the grace was answered cancelled")
	}
}

// Call is one call of a pipelined load and the result it must have.
type Call struct {
	Doc, Result string
}

// Calls returns n calls with ids 0 to n-1: the odd ones blocking(id), the
// even ones add(id, 1), a method of the demo service.
func Calls(n int, blocking func(id int) Call) []Call {
	calls := make([]Call, n)
	for id := range n {
		if id%2 == 1 {
			calls[id] = blocking(id)
		} else {
			calls[id] = Call{
				Doc:    fmt.Sprintf(`{"jsonrpc":"2.0","method":"add","params":[%d,1],"id":%d}`, id, id),
				Result: strconv.Itoa(id + 1),
			}
		}
	}
	return calls
}

// Tagged returns the call with id calling method (sleep or stubborn of
// Methods) for ms, tagged with its id.
func Tagged(method string, ms int) func(id int) Call {
	return func(id int) Call {
		return Call{
			Doc:    fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":[%d,%d],"id":%d}`, method, ms, id, id),
			Result: strconv.Itoa(id),
		}
	}
}

// Join returns the calls' documents one after another, each on a line.
func Join(calls []Call) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString(c.Doc)
		b.WriteByte('\n')
	}
	return b.String()
}

// Counts is how the calls were answered.
type Counts struct {
	Results, NotRun, Cancelled int
}

// answer is one answer as the client reads it.
type answer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error"`
}

// Check checks that answers hold one answer for each of calls: its result,
// or -32001. With ran (nil when the methods run elsewhere), "not run" must
// be the answer only of calls that did not start, and "cancelled" only of
// calls that did.
func Check(t testing.TB, answers [][]byte, calls []Call, ran *Ran) Counts {
	t.Helper()
	var n Counts
	seen := make([]bool, len(calls))
	for _, text := range answers {
		var a answer
		if err := json.Unmarshal(text, &a); err != nil {
			t.Fatalf("answer %q: %v", text, err)
		}
		if a.ID < 0 || a.ID >= len(calls) || seen[a.ID] {
			t.Fatalf("answer %s: an unknown id, or one answered twice", text)
		}
		seen[a.ID] = true
		switch {
		case a.Error == nil:
			if got := string(a.Result); got != calls[a.ID].Result {
				t.Fatalf("id %d: result %s, want %s", a.ID, got, calls[a.ID].Result)
			}
			n.Results++
		case a.Error.Code == rpccore.CodeGoingAway && bytes.HasPrefix(a.Error.Data, []byte(`"not run`)):
			if ran != nil && ran.Has(a.ID) {
				t.Fatalf("id %d was answered not run, but it ran", a.ID)
			}
			n.NotRun++
		case a.Error.Code == rpccore.CodeGoingAway && bytes.HasPrefix(a.Error.Data, []byte(`"cancelled`)):
			if ran != nil && !ran.Has(a.ID) {
				t.Fatalf("id %d was answered cancelled, but it never started", a.ID)
			}
			n.Cancelled++
		default:
			t.Fatalf("answer %s: want a result or -32001", text)
		}
	}
	for id, ok := range seen {
		if !ok {
			t.Fatalf("id %d: no answer before the close (%d answers for %d calls)", id, len(answers), len(calls))
		}
	}
	return n
}

// WaitGoroutines waits, for up to within, until no more goroutines run than
// before, and fails with their stacks if more still do.
func WaitGoroutines(t testing.TB, before int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
