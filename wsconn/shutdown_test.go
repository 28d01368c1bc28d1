package wsconn_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/draintest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

func TestShutdownAnswersEveryMessageSentBeforeTheClose(t *testing.T) {
	for _, tc := range draintest.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			ran := &draintest.Ran{}
			url, shutdown, served := serverWith(t, draintest.Methods(ran), wsconn.Options{},
				rpccore.PeerConfig{MaxInFlight: 8, ShutdownGrace: 150 * time.Millisecond})
			before := runtime.NumGoroutine() // the test server's included
			c := dial(t, url)
			calls := draintest.Calls(1000, draintest.Tagged(tc.Method, tc.Ms))
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				for _, call := range calls {
					if c.Write(context.Background(), websocket.MessageText, []byte(call.Doc)) != nil {
						return
					}
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var answers [][]byte
			for {
				_, msg, err := c.Read(ctx)
				if err != nil {
					if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
						t.Fatalf("after %d answers: %v, want the close 1001", len(answers), err)
					}
					break
				}
				if answers = append(answers, msg); len(answers) == 1 {
					// Every call is sent, the first answered: the rest are
					// in flight, read by the server and running or waiting,
					// or still in the connection.
					<-sent
					shutdown()
				}
			}
			n := draintest.Check(t, answers, calls, ran)
			t.Logf("%+v", n)
			draintest.CheckClosedInFlight(t, n, tc)
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
			c.CloseNow()
			draintest.WaitGoroutines(t, before, time.Duration(tc.Ms)*time.Millisecond+2*time.Second)
		})
	}
}
