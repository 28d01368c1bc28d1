package rpcclient

// subform.go chooses the form of a subscribe call's params: the object
// form {"name":...,"args":[...]}, which can ask to resume, first; the
// positional form ["name", args...] of go-ethereum's convention when the
// server refuses the object form (go-ethereum answers -32602 "non-array
// args"), remembered for the client and namespace so that such a server
// costs one extra round trip once.

import (
	"context"
	"errors"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// subscribeForm is what a client knows of a namespace's <ns>_subscribe.
type subscribeForm struct {
	positional bool   // it refused the object form and took the positional one
	objectOn   uint64 // the connection on which it last took the object form; 0 for none
}

// form returns what the client knows of namespace's subscribe calls.
func (t *subscriptionTable) form(namespace string) subscribeForm {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.forms[namespace]
}

// setForm records what namespace's subscribe calls took.
func (t *subscriptionTable) setForm(namespace string, f subscribeForm) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.forms[namespace] = f
}

// subscribe makes s on the server with params, a params array, and binds
// its id; again says that s is live and being made again after a
// reconnect, and resumes from its last position when it has one.
//
// The object form goes first unless the namespace refused it before. An
// error answer to it, on a connection where the object form was not yet
// taken, may be a server that knows only the positional form, so the
// positional form is tried: its error, if any, is the one reported (a
// source's own error, for bad args say, is given by both). Once the
// object form was taken on a connection, its errors are the source's.
func (c *Client) subscribe(ctx context.Context, s *ClientSubscription, params []byte, again bool) error {
	form := c.subs.form(s.namespace)
	if form.positional {
		return c.subscribeWith(ctx, s, params, again)
	}
	s.mu.Lock()
	obj := s.objectParams(params, again)
	s.mu.Unlock()
	if obj == nil {
		return c.subscribeWith(ctx, s, params, again)
	}
	err := c.subscribeWith(ctx, s, obj, again)
	var answer *rpccore.Error
	switch {
	case err == nil:
		c.subs.setForm(s.namespace, subscribeForm{objectOn: s.boundOn()})
		return nil
	case !errors.As(err, &answer) || c.subs.form(s.namespace).objectOn == c.conns.Load():
		return err
	}
	if err = c.subscribeWith(ctx, s, params, again); err == nil {
		c.subs.setForm(s.namespace, subscribeForm{positional: true})
	}
	return err
}
