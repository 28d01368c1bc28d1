package wsserve

// fanoutparallel.go is the second bare fan-out of the broadcast set: the
// writes of the first shared between one goroutine per processor, each
// writing to its share of the subscribers, over this module's own
// WebSocket layer (package wsconn, the framing and writes ours uses). No
// JSON-RPC server, no hub, no queues: what a delivery to each connection
// costs with the writes spread over the cores as ours spreads them.

import (
	"context"
	"net/http"
	"runtime"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// parallelFanoutHandler serves demo_subscribe ["chat"] and demo_publish
// ["chat", text] as fanoutHandler does, sharing each publish's writes
// between one goroutine per processor.
func parallelFanoutHandler(ctx context.Context) http.Handler {
	var subs subscribers[*wsconn.Conn]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := wsconn.Accept(w, r, wsconn.Options{})
		if err != nil {
			return
		}
		defer c.CloseNow()
		defer subs.remove(c)
		var msg []byte
		for {
			if msg, err = c.ReadMessage(ctx, msg[:0]); err != nil {
				return
			}
			answer, ok := fanoutAnswer(msg, func() { subs.add(c) }, func(note []byte) {
				subs.each(func(all []*wsconn.Conn) { writeShared(ctx, all, note) })
			})
			if !ok || writeOne(ctx, c, answer) != nil {
				return
			}
		}
	})
}

// writeShared writes note to every connection of subs, sharing them
// between one goroutine per processor, and returns once all are written.
func writeShared(ctx context.Context, subs []*wsconn.Conn, note []byte) {
	n := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for i := range n {
		share := subs[i*len(subs)/n : (i+1)*len(subs)/n]
		wg.Go(func() {
			for _, s := range share {
				_ = writeOne(ctx, s, note)
			}
		})
	}
	wg.Wait()
}

// writeOne writes msg to c in one network write.
func writeOne(ctx context.Context, c *wsconn.Conn, msg []byte) error {
	if err := c.WriteMessage(ctx, msg); err != nil {
		return err
	}
	return c.Flush(ctx)
}
