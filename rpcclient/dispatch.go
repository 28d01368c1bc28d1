package rpcclient

// dispatch.go takes what the server sends: answers to the client's calls,
// notifications (of subscriptions, or for the client's methods), and
// calls from the server, alone or in batches.

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/pending"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// incoming is one JSON-RPC object from the server: its members as raw
// JSON, nil when absent.
type incoming struct {
	version, id, method, params, result, errObj []byte
}

// read takes the members of obj, a valid JSON object.
func (m *incoming) read(obj []byte) {
	jsontext.EachMember(obj, func(name, val []byte) bool {
		if bytes.IndexByte(name, '\\') >= 0 {
			name = jsontext.AppendUnquote(nil, name)
		}
		switch string(name) {
		case "jsonrpc":
			m.version = val
		case "id":
			m.id = val
		case "method":
			m.method = val
		case "params":
			m.params = val
		case "result":
			m.result = val
		case "error":
			m.errObj = val
		}
		return true
	})
}

// dispatch takes one message. It returns an error when the message shows
// that the connection can no longer be trusted.
func (c *Client) dispatch(msg []byte) error {
	var fast incoming
	if readFastAnswer(msg, &fast) {
		return c.answered(&fast)
	}
	if err := checkText(msg); err != nil {
		return err
	}
	i := jsontext.SkipSpace(msg, 0)
	switch msg[i] {
	case '{':
		var m incoming
		m.read(msg[i:])
		return c.dispatchObject(msg, &m)
	case '[':
		return c.dispatchBatch(msg, msg[i:])
	}
	return &ProtocolError{Reason: "a message that is neither an object nor an array"}
}

// checkText refuses a message that is not valid JSON text, saying when
// its UTF-8 is what is wrong.
func checkText(msg []byte) error {
	switch {
	case jsontext.Valid(msg):
		return nil
	case !utf8.Valid(msg):
		return &ProtocolError{Reason: "a message that is not valid UTF-8"}
	}
	return &ProtocolError{Reason: "a message that is not valid JSON text"}
}

// dispatchObject takes one object, msg being the message that holds it.
func (c *Client) dispatchObject(msg []byte, m *incoming) error {
	if m.version != nil && string(m.version) != `"2.0"` {
		return &ProtocolError{Reason: "jsonrpc member " + string(m.version) + `, not "2.0"`}
	}
	switch {
	case m.method == nil:
		return c.answered(m)
	case m.method[0] != '"':
		return &ProtocolError{Reason: "a method that is not a string"}
	case m.id == nil:
		c.notified(msg, m)
		return nil
	}
	c.called(msg)
	return nil
}

// dispatchBatch takes an array: the answers of a batch the client sent,
// or a batch of calls from the server.
func (c *Client) dispatchBatch(msg, arr []byte) error {
	if arr[jsontext.SkipSpace(arr, 1)] == ']' {
		return &ProtocolError{Reason: "an empty batch"}
	}
	var err error
	first := true
	jsontext.EachElement(arr, func(el []byte) bool {
		if el[0] != '{' {
			err = &ProtocolError{Reason: "a batch element that is not an object"}
			return false
		}
		var m incoming
		m.read(el)
		if first && m.method != nil {
			c.called(msg) // the server's own batch, answered whole
			return false
		}
		first = false
		if m.method != nil {
			err = &ProtocolError{Reason: "a batch that mixes answers and calls"}
			return false
		}
		err = c.answered(&m)
		return err == nil
	})
	return err
}

// answered hands an answer to its call.
func (c *Client) answered(m *incoming) error {
	switch {
	case m.id == nil:
		return &ProtocolError{Reason: "an object that is neither an answer nor a call"}
	case string(m.id) == "null":
		return &ProtocolError{Reason: "the server could not read a request: " + errorText(m.errObj)}
	}
	if c.calls.Deliver(m.id, m.result, m.errObj) || c.calls.Issued(m.id) {
		return nil // an answer, or a late one to a call that gave up
	}
	return &ProtocolError{Reason: "an answer with id " + string(m.id) + ", which the client never sent"}
}

// errorText describes a raw error member for a ProtocolError.
func errorText(errObj []byte) string {
	if errObj == nil {
		return "no error member"
	}
	e := rpccore.DecodeError(errObj)
	return strconv.Itoa(e.Code) + " " + e.Message
}

// delivered runs, under the table's lock, for each answer handed to a
// call: the answer to a call that makes a subscription binds the
// subscription's id before the next message is read, so that its first
// notifications find it.
func (c *Client) delivered(pc *pending.Call, result []byte) {
	r, _ := pc.Note.(*request)
	if r == nil || r.sub == nil || result == nil {
		return
	}
	c.subs.bind(r.sub, result, c.conns.Load())
}

// notified takes a notification: one for a subscription goes to it; any
// other to the client's methods, on this goroutine, in order.
func (c *Client) notified(msg []byte, m *incoming) {
	if bytes.HasSuffix(m.method, []byte(`_subscription"`)) && m.params != nil && m.params[0] == '{' {
		if c.subs.notify(m.params) {
			return
		}
	}
	c.handlers.Process(c.ctx, msg, nil)
}

// called runs a call (or a batch) from the server on a goroutine of its
// own and queues its answer. Reading waits while WithMaxServerCalls of
// them run.
func (c *Client) called(msg []byte) {
	select {
	case c.slots <- struct{}{}:
	case <-c.ctx.Done():
		return
	}
	doc := bytes.Clone(msg)
	c.serving.Add(1)
	go func() {
		defer func() {
			<-c.slots
			c.serving.Done()
		}()
		if answer := c.handlers.Process(c.ctx, doc, nil); len(answer) > 0 {
			c.queue.push(answer)
		}
	}()
}
