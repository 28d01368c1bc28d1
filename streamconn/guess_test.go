package streamconn_test

import (
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// messageCounter counts the messages a peer reads.
type messageCounter struct {
	in chan int
}

func (m *messageCounter) ObserveCall(string, int, time.Duration) {}
func (m *messageCounter) MessagesIn(n int)                       { m.in <- n }
func (m *messageCounter) MessagesOut(int)                        {}
func (m *messageCounter) SubscriptionsChanged(int)               {}
func (m *messageCounter) NotificationsDropped(int)               {}

func TestLinesThatAreNotOneValueAreFramedAsValues(t *testing.T) {
	counter := &messageCounter{in: make(chan int, 100)}
	srv := rpccore.NewServer(rpccore.WithObserver(counter))
	if err := demo.Register(srv); err != nil {
		t.Fatal(err)
	}
	s := serve(t, "tcp", srv, streamconn.Options{})
	pretty := "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"add\",\n  \"params\": [5, 6],\n  \"id\": 4\n}\n"
	steps := []struct{ send, want string }{
		// One value a line: each line is the value.
		{call("add", "[1,2]", 1) + "\n", result("3", 1)},
		// Two on a line, and a third cut by a newline between its tokens.
		{call("add", "[1,1]", 2) + call("add", "[2,2]", 3) + "\n", result("2", 2) + "\n" + result("4", 3)},
		{pretty, result("11", 4)},
		// Not JSON at all: -32700 for the value framing finds, as without
		// guessing, and the next line is served.
		{"{nope}\n", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"[" + call("add", "[3,3]", 5) + ",\n" + call("add", "[4,4]", 6) + "]\n", "[" + result("6", 5) + "," + result("8", 6) + "]"},
		{call("add", "[9,9]", 7) + "\r\n", result("18", 7)},
	}
	for _, st := range steps {
		s.write(t, st.send)
		for _, want := range strings.Split(st.want, "\n") {
			if got := s.line(t); got != want {
				t.Fatalf("after %q: answer %s, want %s", st.send, got, want)
			}
		}
	}
	// Every value was counted once, however it was read.
	total := 0
	deadline := time.After(5 * time.Second)
	for total < 7 {
		select {
		case n := <-counter.in:
			total += n
		case <-deadline:
			t.Fatalf("%d messages counted, want 7", total)
		}
	}
	time.Sleep(20 * time.Millisecond)
	select {
	case n := <-counter.in:
		t.Fatalf("%d more messages counted, past the 7 sent", n)
	default:
	}
}
