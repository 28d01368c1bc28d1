package rpcclient

// http.go carries calls over HTTP: one POST a call or a batch, or, with
// WithHTTPBatchWindow, the calls made within a window gathered into one
// batch POST.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/pending"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// httpTransport posts calls to one URL.
type httpTransport struct {
	url    string
	client *http.Client
	header http.Header
	opts   *options
	calls  *pending.Table

	mu      sync.Mutex // the batch being gathered
	gather  []byte
	waiting [][]byte // the ids of the calls gathered
	timer   *time.Timer
	flushes sync.WaitGroup
}

// newHTTPTransport returns the transport of u.
func newHTTPTransport(u *url.URL, o *options, calls *pending.Table) *httpTransport {
	client := o.httpClient
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if o.tlsConfig != nil {
			tr.TLSClientConfig = o.tlsConfig.Clone()
		}
		client = &http.Client{Transport: tr}
	}
	h := o.header.Clone()
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	return &httpTransport{url: u.String(), client: client, header: h, opts: o, calls: calls}
}

// close waits for the batches under way.
func (t *httpTransport) close() {
	t.mu.Lock()
	if t.timer != nil && t.timer.Stop() {
		t.flushes.Done()
		t.failGathered(ErrClientClosed)
	}
	t.mu.Unlock()
	t.flushes.Wait()
}

// post sends body and returns the answer's body, nil for none (204).
func (t *httpTransport) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rpcclient: %w", err)
	}
	req.Header = t.header.Clone()
	if f := t.opts.headerFunc; f != nil {
		f(ctx, req.Header)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rpcclient: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.opts.maxMessage)+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("rpcclient: reading the answer: %w", err)
	case len(data) > t.opts.maxMessage:
		return nil, fmt.Errorf("%w (%d bytes)", ErrAnswerTooLarge, t.opts.maxMessage)
	case resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusAccepted:
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		// Servers answer some refusals with a JSON-RPC error and a status.
		if jsontext.Valid(data) && bytes.Contains(data, []byte(`"error"`)) {
			return data, nil
		}
		return nil, &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Body: data[:min(len(data), 512)]}
	}
	return data, nil
}

// call makes one call.
func (t *httpTransport) call(ctx context.Context, result any, method string, args []any) error {
	if t.opts.batchWindow > 0 {
		return t.gatheredCall(ctx, result, method, args)
	}
	body, err := appendRequest(nil, method, []byte("1"), args)
	if err != nil {
		return err
	}
	data, err := t.post(ctx, body)
	if err != nil {
		return err
	}
	m, err := readAnswer(data)
	if err != nil {
		return err
	}
	if string(m.id) != "1" {
		if string(m.id) == "null" && m.errObj != nil {
			return rpccore.DecodeError(m.errObj)
		}
		return &ProtocolError{Reason: "an answer with id " + string(m.id) + " to the call with id 1"}
	}
	if err := answerError(m.result, m.errObj); err != nil {
		return err
	}
	return decodeResult(m.result, result)
}

// readAnswer reads a single answer object.
func readAnswer(data []byte) (*incoming, error) {
	if err := checkText(data); err != nil {
		return nil, err
	}
	return answerObject(data)
}

// answerObject reads the answer object that data, valid JSON text, holds.
func answerObject(data []byte) (*incoming, error) {
	i := jsontext.SkipSpace(data, 0)
	if data[i] != '{' {
		return nil, &ProtocolError{Reason: "an answer that is not an object"}
	}
	m := &incoming{}
	m.read(data[i:])
	if m.id == nil {
		return nil, &ProtocolError{Reason: "an answer without an id"}
	}
	return m, nil
}

// notify posts a notification.
func (t *httpTransport) notify(ctx context.Context, msg []byte) error {
	_, err := t.post(ctx, msg)
	return err
}

// batch posts the calls of b as one batch.
func (t *httpTransport) batch(ctx context.Context, b []BatchElem) error {
	calls := make([]*pending.Call, len(b))
	defer func() {
		for _, pc := range calls {
			if pc != nil {
				pc.Release()
			}
		}
	}()
	body := []byte{'['}
	for i := range b {
		pc, err := t.calls.Open()
		if err != nil {
			return err
		}
		calls[i] = pc
		if i > 0 {
			body = append(body, ',')
		}
		if body, err = appendRequest(body, b[i].Method, pc.ID(), b[i].Args); err != nil {
			return err
		}
	}
	body = append(body, ']')
	ids := make([][]byte, len(calls))
	for i, pc := range calls {
		ids[i] = pc.ID()
	}
	if err := t.postBatch(ctx, body, ids); err != nil {
		return err
	}
	for i, pc := range calls {
		res, errObj, err := pc.Wait(ctx)
		b[i].Error = settle(res, errObj, err, b[i].Result)
	}
	return nil
}

// postBatch posts a batch and hands each answer to its call; a call
// without an answer fails (ids are those of the batch's calls). It returns
// the error that failed them all.
func (t *httpTransport) postBatch(ctx context.Context, body []byte, ids [][]byte) error {
	data, err := t.post(ctx, body)
	if err == nil {
		err = t.deliverBatch(data)
	}
	for _, id := range ids {
		if err != nil {
			t.calls.FailID(id, err)
		} else {
			t.calls.FailID(id, &ProtocolError{Reason: "the batch's answer lacks the answer of a call"})
		}
	}
	return err
}

// deliverBatch hands the answers of a batch to their calls.
func (t *httpTransport) deliverBatch(data []byte) error {
	if err := checkText(data); err != nil {
		return err
	}
	i := jsontext.SkipSpace(data, 0)
	if data[i] == '{' { // the whole batch refused
		m, err := answerObject(data)
		if err != nil {
			return err
		}
		if m.errObj != nil {
			return rpccore.DecodeError(m.errObj)
		}
		return &ProtocolError{Reason: "an object answering a batch"}
	}
	if data[i] != '[' {
		return &ProtocolError{Reason: "a batch answer that is not an array"}
	}
	var err error
	jsontext.EachElement(data[i:], func(el []byte) bool {
		if el[0] != '{' {
			err = &ProtocolError{Reason: "a batch answer element that is not an object"}
			return false
		}
		var m incoming
		m.read(el)
		if m.id != nil {
			t.calls.Deliver(m.id, m.result, m.errObj)
		}
		return true
	})
	return err
}

// gatheredCall adds a call to the batch being gathered, which leaves when
// the window closes (or when it holds rpccore.DefaultMaxBatch calls).
func (t *httpTransport) gatheredCall(ctx context.Context, result any, method string, args []any) error {
	pc, err := t.calls.Open()
	if err != nil {
		return err
	}
	defer pc.Release()
	msg, err := appendRequest(nil, method, pc.ID(), args)
	if err != nil {
		return err
	}
	t.mu.Lock()
	if len(t.waiting) == 0 {
		t.gather = append(t.gather[:0], '[')
		t.flushes.Add(1)
		t.timer = time.AfterFunc(t.opts.batchWindow, t.flushGathered)
	} else {
		t.gather = append(t.gather, ',')
	}
	t.gather = append(t.gather, msg...)
	t.waiting = append(t.waiting, append([]byte(nil), pc.ID()...))
	if len(t.waiting) >= rpccore.DefaultMaxBatch && t.timer.Stop() {
		t.mu.Unlock()
		t.flushGathered()
	} else {
		t.mu.Unlock()
	}
	res, errObj, err := pc.Wait(ctx)
	return settle(res, errObj, err, result)
}

// flushGathered posts the batch gathered.
func (t *httpTransport) flushGathered() {
	defer t.flushes.Done()
	t.mu.Lock()
	body := append(t.gather, ']')
	calls := t.waiting
	t.gather, t.waiting, t.timer = nil, nil, nil
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), rpccore.DefaultCallTimeout)
	defer cancel()
	_ = t.postBatch(ctx, body, calls)
}

// failGathered fails the calls gathered and not posted; t.mu is held.
func (t *httpTransport) failGathered(err error) {
	for _, id := range t.waiting {
		t.calls.FailID(id, err)
	}
	t.gather, t.waiting, t.timer = nil, nil, nil
}
