package rpccore

// peercall.go lets the server call methods on the client and send it
// notifications over a peer connection.

import (
	"context"
	"strconv"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// callResult is the client's answer to a call the server made.
type callResult struct {
	result []byte
	err    error
}

// callTable holds the server's calls awaiting the client's answer, by the
// raw JSON id they were sent with.
type callTable struct {
	mu      sync.Mutex
	next    uint64
	pending map[string]chan callResult
	closed  bool
}

// open allocates an id and a channel for its answer.
func (t *callTable) open() (id string, ch chan callResult, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return "", nil, ErrPeerClosed
	}
	t.next++
	id = `"s` + strconv.FormatUint(t.next, 10) + `"`
	ch = make(chan callResult, 1)
	if t.pending == nil {
		t.pending = map[string]chan callResult{}
	}
	t.pending[id] = ch
	return id, ch, nil
}

func (t *callTable) forget(id string) {
	t.mu.Lock()
	delete(t.pending, id)
	t.mu.Unlock()
}

// deliver hands a Response object from the client to the call it answers.
// Answers to no pending call are ignored.
func (t *callTable) deliver(id, result, errVal []byte) {
	t.mu.Lock()
	ch := t.pending[string(id)]
	delete(t.pending, string(id))
	t.mu.Unlock()
	if ch == nil {
		return
	}
	if errVal != nil && string(errVal) != "null" {
		var e struct {
			Code    int     `json:"code"`
			Message string  `json:"message"`
			Data    RawJSON `json:"data"`
		}
		if err := json.Unmarshal(errVal, &e); err != nil {
			ch <- callResult{err: &Error{Code: CodeInternalError, Message: "malformed error from peer"}}
			return
		}
		rpcErr := &Error{Code: e.Code, Message: e.Message}
		if e.Data != nil {
			rpcErr.Data = e.Data
		}
		ch <- callResult{err: rpcErr}
		return
	}
	ch <- callResult{result: append([]byte(nil), result...)}
}

// failAll ends every pending call with ErrPeerClosed and refuses new ones.
func (t *callTable) failAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	for id, ch := range t.pending {
		ch <- callResult{err: ErrPeerClosed}
		delete(t.pending, id)
	}
}

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
	id, ch, err := p.calls.open()
	if err != nil {
		return err
	}
	defer p.calls.forget(id)
	msg, err := encodeRequest(method, params, id)
	if err != nil {
		return err
	}
	if !p.out.pushAnswer(outMsg{head: msg}) {
		return ErrPeerClosed
	}
	select {
	case r := <-ch:
		if r.err != nil || result == nil {
			return r.err
		}
		return json.Unmarshal(r.result, result)
	case <-ctx.Done():
		return ctx.Err()
	case <-p.ctx.Done():
		return ErrPeerClosed
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
	if id != "" {
		msg = append(append(msg, idInfix...), id...)
	}
	return append(msg, '}'), nil
}
