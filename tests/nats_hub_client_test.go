package tests

// nats_hub_client_test.go is a JSON-RPC client in memory for the NATS hub
// tests: a connection served by an rpccore server that follows a hub.

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// pipe is a rpccore.MessageConn in memory; the test is the client.
type pipe struct {
	in     chan []byte
	out    chan []byte
	closed chan struct{}
	once   sync.Once
}

func newPipe() *pipe {
	return &pipe{in: make(chan []byte, 16), out: make(chan []byte, 8192), closed: make(chan struct{})}
}

func (p *pipe) ReadMessage(ctx context.Context, dst []byte) ([]byte, error) {
	select {
	case m := <-p.in:
		return append(dst, m...), nil
	case <-p.closed:
		return nil, errors.New("closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipe) WriteMessage(ctx context.Context, msg []byte) error {
	select {
	case p.out <- append([]byte(nil), msg...):
		return nil
	case <-p.closed:
		return errors.New("closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipe) Flush(context.Context) error { return nil }

func (p *pipe) close() { p.once.Do(func() { close(p.closed) }) }

// rpcClient is one connection to a server that follows a hub.
type rpcClient struct {
	t    *testing.T
	pipe *pipe
	done chan error
	once sync.Once
}

// connect serves a new connection on srv.
func connect(t *testing.T, srv *rpccore.Server) *rpcClient {
	c := &rpcClient{t: t, pipe: newPipe(), done: make(chan error, 1)}
	go func() { c.done <- srv.ServePeer(context.Background(), c.pipe, rpccore.PeerConfig{SendQueue: 4096}) }()
	t.Cleanup(c.close)
	return c
}

func (c *rpcClient) close() {
	c.once.Do(func() {
		c.pipe.close()
		select {
		case <-c.done:
		case <-time.After(natsWait):
			c.t.Error("the connection did not end")
		}
	})
}

// recv returns the next message the server sends.
func (c *rpcClient) recv() map[string]json.RawMessage {
	c.t.Helper()
	select {
	case m := <-c.pipe.out:
		var v map[string]json.RawMessage
		if err := json.Unmarshal(m, &v); err != nil {
			c.t.Fatalf("the server sent %s: %v", m, err)
		}
		return v
	case <-time.After(natsWait):
		c.t.Fatal("nothing from the server")
		return nil
	}
}

// subscribeAnswer is the object answer of demo_subscribe.
type subscribeAnswer struct {
	Subscription string            `json:"subscription"`
	Position     *rpccore.Position `json:"position"`
	Recovered    *bool             `json:"recovered"`
}

// subscribeChat subscribes to the demo's chat, resuming from resume when
// it is set.
func (c *rpcClient) subscribeChat(resume *rpccore.Position) subscribeAnswer {
	c.t.Helper()
	params := map[string]any{"name": "chat"}
	if resume != nil {
		params["resume"] = resume
	}
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "demo_subscribe", "params": params})
	c.pipe.in <- req
	answer := c.recv()
	var a subscribeAnswer
	if err := json.Unmarshal(answer["result"], &a); err != nil || a.Subscription == "" {
		c.t.Fatalf("demo_subscribe answered %s", answer["error"])
	}
	return a
}

// notification is one chat notification.
type notification struct {
	text     string
	position rpccore.Position
}

// notifications returns the next n notifications.
func (c *rpcClient) notifications(n int) []notification {
	c.t.Helper()
	out := make([]notification, 0, n)
	for len(out) < n {
		m := c.recv()
		var params struct {
			Result   string           `json:"result"`
			Position rpccore.Position `json:"position"`
		}
		if err := json.Unmarshal(m["params"], &params); err != nil {
			c.t.Fatalf("not a notification: %v", m)
		}
		out = append(out, notification{params.Result, params.Position})
	}
	return out
}

// texts returns the notifications' texts.
func texts(ns []notification) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.text
	}
	return out
}

// demoServer returns a server with the demo service following hub.
func demoServer(t *testing.T, hub rpccore.Hub) *rpccore.Server {
	srv := rpccore.NewServer(rpccore.WithHub(hub))
	if err := demo.Register(srv); err != nil {
		t.Fatal(err)
	}
	return srv
}
