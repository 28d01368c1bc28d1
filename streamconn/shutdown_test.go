package streamconn_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/draintest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

func TestShutdownAnswersEveryCallSent(t *testing.T) {
	for _, tc := range draintest.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			ran := &draintest.Ran{}
			s := servePeer(t, "tcp", demoServer(t, draintest.Methods(ran)), streamconn.Options{},
				rpccore.PeerConfig{MaxInFlight: 8, ShutdownGrace: 150 * time.Millisecond})
			calls := draintest.Calls(1000, draintest.Tagged(tc.Method, tc.Ms))
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				s.conn.Write([]byte(draintest.Join(calls)))
			}()
			// Every call is sent, the first answered: the rest are in flight,
			// read by the server and running or waiting, or still in the
			// connection.
			first := s.line(t)
			<-sent
			s.cancel()
			s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			rest, err := io.ReadAll(s.lines) // to the close, which must be clean (no reset)
			if err != nil {
				t.Fatalf("reading to the close: %v", err)
			}
			answers := append([][]byte{[]byte(first)}, bytes.Split(bytes.TrimSuffix(rest, []byte("\n")), []byte("\n"))...)
			n := draintest.Check(t, answers, calls, ran)
			t.Logf("%+v", n)
			draintest.CheckClosedInFlight(t, n, tc)
			if err := <-s.done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			s.done <- nil
			draintest.WaitGoroutines(t, before, time.Duration(tc.Ms)*time.Millisecond+2*time.Second)
		})
	}
}
