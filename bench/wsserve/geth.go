package wsserve

// geth.go serves go-ethereum's rpc over WebSocket: the five benchmark
// methods and a chat room in go-ethereum's subscription convention.

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
)

// gethHandler is go-ethereum's WebSocket handler for a server with the
// benchmark methods ("bench_add", ...) and the chat ("demo_subscribe"
// ["chat"], "demo_publish" ["chat", message]).
func gethHandler() (http.Handler, error) {
	s := inprocess.NewGethServer()
	if err := s.RegisterName("demo", newGethChat()); err != nil {
		return nil, err
	}
	return s.WebsocketHandler([]string{"*"}), nil
}

// gethChat is a chat room the way go-ethereum's own subscriptions are
// written: each subscription a goroutine that forwards what is published
// to it with Notifier.Notify.
type gethChat struct {
	mu   sync.Mutex
	subs map[chan string]struct{}
}

// newGethChat returns an empty room.
func newGethChat() *gethChat { return &gethChat{subs: map[chan string]struct{}{}} }

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
	c.mu.Lock()
	c.subs[ch] = struct{}{}
	c.mu.Unlock()
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.subs, ch)
			c.mu.Unlock()
		}()
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

// errNoRoom answers a publish to a room other than "chat".
var errNoRoom = errors.New(`no such room; the chat is "chat"`)

// Publish sends message to every subscriber of room "chat".
func (c *gethChat) Publish(room, message string) (bool, error) {
	if room != "chat" {
		return false, errNoRoom
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.subs {
		select {
		case ch <- message:
		default:
		}
	}
	return true, nil
}
