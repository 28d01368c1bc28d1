package rpcclient

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// fakeSubscriptions is a "fake" subscription namespace written by hand,
// to see which params form the client sends. With geth it refuses the
// object form as go-ethereum's server does (-32602 "non-array args"); the
// name "bad" fails in either form, as a source refusing its args would;
// with recover it answers a resume "recovered":true. fake_emit sends a
// notification with the value and position given.
type fakeSubscriptions struct {
	geth, recover bool

	object, positional atomic.Int64
	ids                atomic.Int64

	mu         sync.Mutex
	lastObject string // the params of the last object-form call
}

// server returns an rpccore server of the fake namespace.
func (f *fakeSubscriptions) server(t testing.TB) *rpccore.Server {
	s := rpccore.NewServer()
	err := s.RegisterMethods(rpccore.Methods{
		"fake_subscribe":   rpccore.Raw(f.subscribe),
		"fake_unsubscribe": rpccore.Func1(func(context.Context, string) (bool, error) { return true, nil }, "id"),
		"fake_emit":        rpccore.Func4(f.emit, "id", "value", "epoch", "offset"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fakeSubscriptions) subscribe(_ context.Context, params []byte, w *rpccore.ResultWriter) error {
	object := len(params) > 0 && params[0] == '{'
	if object {
		f.object.Add(1)
		f.mu.Lock()
		f.lastObject = string(params)
		f.mu.Unlock()
	} else {
		f.positional.Add(1)
	}
	switch {
	case object && f.geth:
		return &rpccore.Error{Code: rpccore.CodeInvalidParams, Message: "non-array args"}
	case bytes.Contains(params, []byte(`"bad"`)):
		return &rpccore.Error{Code: rpccore.CodeInvalidParams, Message: "bad args"}
	}
	id := "0x" + strconv.FormatInt(f.ids.Add(1), 16)
	if !object {
		w.String(id)
		return nil
	}
	answer := `{"subscription":"` + id + `"`
	if f.recover && bytes.Contains(params, []byte(`"resume":`)) {
		answer += `,"recovered":true`
	}
	return w.Raw([]byte(answer + "}"))
}

// fakeNotification is the params of a fake_subscription notification.
type fakeNotification struct {
	Subscription string            `json:"subscription"`
	Result       int               `json:"result"`
	Position     *rpccore.Position `json:"position,omitempty"`
}

// emit notifies subscription id of value at position (epoch, offset); no
// position when epoch is "".
func (f *fakeSubscriptions) emit(ctx context.Context, id string, value int, epoch string, offset uint64) (bool, error) {
	n := fakeNotification{Subscription: id, Result: value}
	if epoch != "" {
		n.Position = &rpccore.Position{Epoch: epoch, Offset: offset}
	}
	return true, rpccore.PeerFrom(ctx).Notify("fake_subscription", n)
}

// lastObjectParams returns the params of the last object-form subscribe.
func (f *fakeSubscriptions) lastObjectParams() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastObject
}

// forms checks how many subscribe calls came in each form.
func (f *fakeSubscriptions) forms(t *testing.T, object, positional int64) {
	t.Helper()
	if o, p := f.object.Load(), f.positional.Load(); o != object || p != positional {
		t.Fatalf("subscribe calls: %d object form, %d positional; want %d and %d", o, p, object, positional)
	}
}

// emitTo makes the fake server notify sub of value at (epoch, offset).
func emitTo(t *testing.T, c *Client, sub *ClientSubscription, value int, epoch string, offset uint64) {
	t.Helper()
	if err := c.Call(testContext(t), nil, "fake_emit", unquote([]byte(sub.serverID())), value, epoch, offset); err != nil {
		t.Fatal(err)
	}
}
