package streamconn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// ranCalls records the tags of the calls that ran.
type ranCalls struct{ sync.Map }

func (r *ranCalls) has(tag int) bool { _, ok := r.Load(tag); return ok }

// drainServer serves add and sleep(ms, tag), a Blocking method that
// honours its context, and stubborn(ms, tag), one that does not; both
// record their tag once they start.
func drainServer(t *testing.T, ran *ranCalls) *rpccore.Server {
	return demoServer(t, rpccore.Methods{
		"sleep": rpccore.Func2(func(ctx context.Context, ms, tag int) (int, error) {
			ran.Store(tag, true)
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return tag, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}, "ms", "tag").Blocking(),
		"stubborn": rpccore.Func2(func(ctx context.Context, ms, tag int) (int, error) {
			ran.Store(tag, true)
			time.Sleep(time.Duration(ms) * time.Millisecond)
			return tag, nil
		}, "ms", "tag").Blocking(),
	})
}

// answerOf is one answer as a client reads it.
type answerOf struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int    `json:"code"`
		Data string `json:"data"`
	} `json:"error"`
}

// checkEveryCallAnswered checks that the answers hold each id below n
// once: a result (for a call that ran, with the right value) or -32001,
// "not run" only for calls that did not run.
func checkEveryCallAnswered(t *testing.T, answers []answerOf, n int, ran *ranCalls, want func(id int) string) (results, notRun, cancelled int) {
	t.Helper()
	seen := make([]bool, n)
	for _, a := range answers {
		if a.ID < 0 || a.ID >= n || seen[a.ID] {
			t.Fatalf("answer for id %d: unknown or twice", a.ID)
		}
		seen[a.ID] = true
		switch {
		case a.Error == nil:
			if got := string(a.Result); got != want(a.ID) {
				t.Fatalf("id %d: result %s, want %s", a.ID, got, want(a.ID))
			}
			results++
		case a.Error.Code == rpccore.CodeGoingAway && strings.HasPrefix(a.Error.Data, "not run"):
			if ran.has(a.ID) {
				t.Fatalf("id %d answered not run, but it ran", a.ID)
			}
			notRun++
		case a.Error.Code == rpccore.CodeGoingAway && strings.HasPrefix(a.Error.Data, "cancelled"):
			if !ran.has(a.ID) {
				t.Fatalf("id %d answered cancelled, but it never started", a.ID)
			}
			cancelled++
		default:
			t.Fatalf("id %d: error %+v, want a result or -32001", a.ID, *a.Error)
		}
	}
	for id, ok := range seen {
		if !ok {
			t.Fatalf("id %d: no answer before the close (%d answers of %d)", id, len(answers), n)
		}
	}
	return results, notRun, cancelled
}

// pipelinedCalls returns n calls, the odd ids calling method (sleep or
// stubborn) for ms, the even ones add, and the result each must have.
func pipelinedCalls(n int, method string, ms int) (text string, want func(id int) string) {
	var b strings.Builder
	for id := range n {
		if id%2 == 1 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":%q,"params":[%d,%d],"id":%d}`+"\n", method, ms, id, id)
		} else {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"add","params":[%d,1],"id":%d}`+"\n", id, id)
		}
	}
	return b.String(), func(id int) string {
		if id%2 == 1 {
			return strconv.Itoa(id)
		}
		return strconv.Itoa(id + 1)
	}
}

// readAnswers reads answer lines until the server closes the connection,
// which must be a clean close (no reset).
func readAnswers(t *testing.T, s *served) []answerOf {
	t.Helper()
	var answers []answerOf
	s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		line, err := s.lines.ReadString('\n')
		if err == io.EOF && line == "" {
			return answers
		}
		if err != nil {
			t.Fatalf("after %d answers: %v", len(answers), err)
		}
		var a answerOf
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		answers = append(answers, a)
	}
}

func TestShutdownAnswersEveryCallSent(t *testing.T) {
	for _, tc := range []struct {
		name, method string
		ms           int
	}{
		{"calls that end when cancelled", "sleep", 40},
		{"calls that outlast the grace", "stubborn", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			ran := &ranCalls{}
			s := servePeer(t, "tcp", drainServer(t, ran), streamconn.Options{},
				rpccore.PeerConfig{MaxInFlight: 8, ShutdownGrace: 150 * time.Millisecond})
			const n = 1000
			text, want := pipelinedCalls(n, tc.method, tc.ms)
			go s.conn.Write([]byte(text))
			// Once the first answers are back, the rest are in flight: read
			// by the server and waiting, running, or still on their way.
			first, err := s.lines.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			s.cancel()
			var a answerOf
			if err := json.Unmarshal([]byte(first), &a); err != nil {
				t.Fatal(err)
			}
			answers := append([]answerOf{a}, readAnswers(t, s)...)
			results, notRun, cancelled := checkEveryCallAnswered(t, answers, n, ran, want)
			t.Logf("%d results, %d not run, %d cancelled", results, notRun, cancelled)
			if notRun == 0 {
				t.Error("no call was answered not run: the shutdown came after every call had run")
			}
			if tc.method == "stubborn" && cancelled == 0 {
				t.Error("no call outlasting the grace was answered cancelled")
			}
			if err := <-s.done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			s.done <- nil
			waitGoroutines(t, before, tc.ms)
		})
	}
}

// waitGoroutines waits for the goroutines to be back to before, giving
// methods still running ms to end.
func waitGoroutines(t *testing.T, before, ms int) {
	t.Helper()
	deadline := time.Now().Add(time.Duration(ms)*time.Millisecond + 2*time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
