package wsserve

// fanout.go is the bare fan-out of the broadcast set: no JSON-RPC server,
// no hub, no queues; a publish is answered by writing one pre-encoded
// notification to every subscribed connection in turn, from the
// publisher's goroutine. It shows what the machine, the WebSocket library
// and the client cost for one delivery to each connection.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// fanoutHandler serves demo_subscribe ["chat"] and demo_publish ["chat",
// text] and nothing else, in the fewest steps.
func fanoutHandler(ctx context.Context) http.Handler {
	var subs subscribers[*websocket.Conn]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			return
		}
		defer c.CloseNow()
		defer subs.remove(c)
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			answer, ok := fanoutAnswer(msg, func() { subs.add(c) }, func(note []byte) {
				subs.each(func(all []*websocket.Conn) {
					for _, s := range all {
						_ = s.Write(ctx, websocket.MessageText, note)
					}
				})
			})
			if !ok || c.Write(ctx, websocket.MessageText, answer) != nil {
				return
			}
		}
	})
}

// fanoutAnswer answers one request of a bare fan-out: demo_subscribe
// calls subscribe, demo_publish calls publish with the notification every
// subscriber is to get, and any other method is refused. It reports false
// for a message that is not a request.
func fanoutAnswer(msg []byte, subscribe func(), publish func(note []byte)) ([]byte, bool) {
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
		subscribe()
		return []byte(`{"jsonrpc":"2.0","result":"0x1","id":` + string(req.ID) + `}`), true
	case req.Method == "demo_publish" && len(req.Params) == 2:
		publish([]byte(`{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":` +
			strconv.Quote(req.Params[1]) + `}}`))
		return []byte(`{"jsonrpc":"2.0","result":true,"id":` + string(req.ID) + `}`), true
	}
	return []byte(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"` + strings.ReplaceAll(req.Method, `"`, "") +
		` is not served here"},"id":` + string(req.ID) + `}`), true
}

// subscribers are a bare fan-out's subscribed connections.
type subscribers[C comparable] struct {
	mu   sync.Mutex
	subs []C
}

// add subscribes c.
func (s *subscribers[C]) add(c C) {
	s.mu.Lock()
	s.subs = append(s.subs, c)
	s.mu.Unlock()
}

// remove forgets c, if it subscribed.
func (s *subscribers[C]) remove(c C) {
	s.mu.Lock()
	if i := slices.Index(s.subs, c); i >= 0 {
		s.subs = slices.Delete(s.subs, i, i+1)
	}
	s.mu.Unlock()
}

// each calls f with every subscriber, none joining or leaving meanwhile.
func (s *subscribers[C]) each(f func(all []C)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.subs)
}
