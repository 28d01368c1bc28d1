package childserve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/wsconn"
)

// oursHandler upgrades every request and serves the demo service on it,
// with wsconn's and rpccore's default options, until ctx ends.
func oursHandler(ctx context.Context) (http.Handler, error) {
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wsconn.Serve(ctx, w, r, s, wsconn.Options{}, rpccore.PeerConfig{})
	}), nil
}

// gethHandler is go-ethereum's WebSocket handler serving the benchmark
// methods ("bench_add", ...) and the chat (demo_subscribe, demo_publish).
func gethHandler() (http.Handler, error) {
	s := inprocess.NewGethServer()
	if err := s.RegisterName("demo", &gethChat{}); err != nil {
		return nil, err
	}
	return s.WebsocketHandler([]string{"*"}), nil
}

// gethChat is a chat room the way go-ethereum's own subscriptions are
// written: each subscription a goroutine that forwards what is published
// to it with Notifier.Notify.
type gethChat struct {
	subs sync.Map // the queue of each subscriber, a chan string
}

// gethQueue bounds the messages waiting for one subscriber; past it they
// are dropped, as the demo's hub does.
const gethQueue = 1024

// Chat is the "chat" subscription: every message published to the room.
func (c *gethChat) Chat(ctx context.Context) (*rpc.Subscription, error) {
	n, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	sub := n.CreateSubscription()
	ch := make(chan string, gethQueue)
	c.subs.Store(ch, nil)
	go func() {
		defer c.subs.Delete(ch)
		for {
			select {
			case msg := <-ch:
				if n.Notify(sub.ID, msg) != nil {
					return
				}
			case <-sub.Err():
				return
			}
		}
	}()
	return sub, nil
}

// Publish sends message to every subscriber of room "chat".
func (c *gethChat) Publish(room, message string) (bool, error) {
	if room != "chat" {
		return false, errors.New(`no such room; the chat is "chat"`)
	}
	c.subs.Range(func(ch, _ any) bool {
		select {
		case ch.(chan string) <- message:
		default:
		}
		return true
	})
	return true, nil
}

// fanoutHandler serves demo_subscribe ["chat"] and demo_publish ["chat",
// text] and nothing else, in the fewest steps: no hub, no queues; a publish
// is answered by writing one pre-encoded notification to every subscriber
// in turn, from the publisher's goroutine. It shows what the machine, the
// WebSocket library and the client cost for one delivery to each
// connection.
func fanoutHandler(ctx context.Context) http.Handler {
	f := fanout[*websocket.Conn]{publish: func(all []*websocket.Conn, note []byte) {
		for _, s := range all {
			_ = s.Write(ctx, websocket.MessageText, note)
		}
	}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			return
		}
		defer c.CloseNow()
		defer f.remove(c)
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			answer, ok := f.answer(c, msg)
			if !ok || c.Write(ctx, websocket.MessageText, answer) != nil {
				return
			}
		}
	})
}

// parallelFanoutHandler serves demo_subscribe ["chat"] and demo_publish
// ["chat", text] as fanoutHandler does, sharing each publish's writes
// between one goroutine per processor over package wsconn (the framing and
// writes ours uses): what a delivery costs with the writes spread over the
// cores as ours spreads them.
func parallelFanoutHandler(ctx context.Context) http.Handler {
	f := fanout[*wsconn.Conn]{publish: func(all []*wsconn.Conn, note []byte) { writeShared(ctx, all, note) }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := wsconn.Accept(w, r, wsconn.Options{})
		if err != nil {
			return
		}
		defer c.CloseNow()
		defer f.remove(c)
		var msg []byte
		for {
			if msg, err = c.ReadMessage(ctx, msg[:0]); err != nil {
				return
			}
			answer, ok := f.answer(c, msg)
			if !ok || writeOne(ctx, c, answer) != nil {
				return
			}
		}
	})
}

// fanout is a bare fan-out's subscribed connections, and how it writes a
// notification to all of them.
type fanout[C comparable] struct {
	mu      sync.Mutex
	subs    []C
	publish func(all []C, note []byte) // called with mu held
}

// answer answers a request of c: demo_subscribe subscribes c, demo_publish
// publishes its notification. Any other message gets false.
func (f *fanout[C]) answer(c C, msg []byte) ([]byte, bool) {
	var req struct {
		Method string          `json:"method"`
		Params []string        `json:"params"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &req) != nil {
		return nil, false
	}
	switch {
	case req.Method == "demo_subscribe":
		f.mu.Lock()
		f.subs = append(f.subs, c)
		f.mu.Unlock()
		return []byte(`{"jsonrpc":"2.0","result":"0x1","id":` + string(req.ID) + `}`), true
	case req.Method == "demo_publish" && len(req.Params) == 2:
		note := []byte(`{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":` +
			strconv.Quote(req.Params[1]) + `}}`)
		f.mu.Lock()
		f.publish(f.subs, note)
		f.mu.Unlock()
		return []byte(`{"jsonrpc":"2.0","result":true,"id":` + string(req.ID) + `}`), true
	}
	return nil, false
}

// remove forgets c, if it subscribed.
func (f *fanout[C]) remove(c C) {
	f.mu.Lock()
	if i := slices.Index(f.subs, c); i >= 0 {
		f.subs = slices.Delete(f.subs, i, i+1)
	}
	f.mu.Unlock()
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
