package rpccore

// peercall.go lets the server call methods on the client and send it
// notifications over a peer connection.

import (
	"context"

	json "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/pending"
)

// Call calls method on the client with params (encoded as JSON; nil for
// none, which must otherwise encode as an array or object) and decodes the
// answer's result into result (unless nil). It waits for the answer until
// ctx ends, the connection ends, or CallTimeout passes when ctx has no
// deadline. An error answer is returned as an *Error.
func (p *Peer) Call(ctx context.Context, method string, params any, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.cfg.CallTimeout)
		defer cancel()
	}
	c, err := p.callTable().Open()
	if err != nil {
		return err
	}
	defer c.Release()
	msg, err := encodeRequest(method, params, string(c.ID()))
	if err != nil {
		return err
	}
	if !p.out.pushAnswer(outMsg{head: msg}) {
		return ErrPeerClosed
	}
	res, errObj, err := c.Wait(ctx) // the peer's end closes the table
	switch {
	case err != nil:
		return err
	case errObj != nil && string(errObj) != "null":
		return DecodeError(errObj)
	case result == nil:
		return nil
	}
	return json.Unmarshal(res, result)
}

// endedCalls is the table of every peer that has ended: closed, so that a
// call opened on it fails at once.
var endedCalls = func() *pending.Table {
	t := pending.New("s")
	t.Close(ErrPeerClosed)
	return t
}()

// callTable returns the table of the peer's calls to the client, making it
// on the first call (most peers never call their client, and an idle
// connection's memory counts), or endedCalls once the peer has ended.
func (p *Peer) callTable() *pending.Table {
	if t := p.calls.Load(); t != nil {
		return t
	}
	p.calls.CompareAndSwap(nil, pending.New("s"))
	return p.calls.Load()
}

// endCalls fails the peer's calls to the client waiting for answers, and
// every later one.
func (p *Peer) endCalls() {
	if t := p.calls.Swap(endedCalls); t != nil {
		t.Close(ErrPeerClosed)
	}
}

// Notify sends the client a notification of method with params (nil for
// none). It does not wait; under the slow-consumer policy it may be
// dropped, or end the connection.
func (p *Peer) Notify(method string, params any) error {
	msg, err := encodeRequest(method, params, "")
	if err != nil {
		return err
	}
	return p.sendNotification(outMsg{head: msg})
}

// encodeRequest encodes a Request object; an empty id makes it a
// notification.
func encodeRequest(method string, params any, id string) ([]byte, error) {
	msg := append([]byte(`{"jsonrpc":"2.0","method":`), jsontext.AppendQuote(nil, method)...)
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if len(raw) == 0 || (raw[0] != '[' && raw[0] != '{') {
			return nil, &Error{Code: CodeInvalidParams, Message: "params must encode as an array or an object"}
		}
		msg = append(append(msg, `,"params":`...), raw...)
	}
	if id == "" {
		return append(msg, '}'), nil
	}
	return appendIDMember(msg, []byte(id)), nil
}
