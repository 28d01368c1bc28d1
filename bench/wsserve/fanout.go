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
	"strconv"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// fanoutHandler serves demo_subscribe ["chat"] and demo_publish ["chat",
// text] and nothing else, in the fewest steps.
func fanoutHandler(ctx context.Context) http.Handler {
	var mu sync.Mutex
	var subs []*websocket.Conn
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				mu.Lock()
				for i, s := range subs {
					if s == c {
						subs = append(subs[:i], subs[i+1:]...)
						break
					}
				}
				mu.Unlock()
				return
			}
			var req struct {
				Method string          `json:"method"`
				Params []string        `json:"params"`
				ID     json.RawMessage `json:"id"`
			}
			if json.Unmarshal(msg, &req) != nil {
				return
			}
			switch {
			case req.Method == "demo_subscribe":
				mu.Lock()
				subs = append(subs, c)
				mu.Unlock()
				err = c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","result":"0x1","id":`+string(req.ID)+`}`))
			case req.Method == "demo_publish" && len(req.Params) == 2:
				note := []byte(`{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":` +
					strconv.Quote(req.Params[1]) + `}}`)
				mu.Lock()
				for _, s := range subs {
					_ = s.Write(ctx, websocket.MessageText, note)
				}
				mu.Unlock()
				err = c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","result":true,"id":`+string(req.ID)+`}`))
			default:
				err = c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"`+
					strings.ReplaceAll(req.Method, `"`, "")+` is not served here"},"id":`+string(req.ID)+`}`))
			}
			if err != nil {
				return
			}
		}
	})
}
