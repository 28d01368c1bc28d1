package rpcclient

import "context"

// BatchElem is one call of a batch (BatchCall).
type BatchElem struct {
	// Method is the method called.
	Method string
	// Args are its params, as Call takes them.
	Args []any
	// Result receives the decoded result (a pointer; nil drops it).
	Result any
	// Error is set when the server answered an error (an *rpccore.Error),
	// the result could not be decoded, or the call could not complete.
	Error error
}

// BatchCall sends the calls of b as one batch and waits for all their
// answers. Each call's own error is in its Error; BatchCall itself returns
// an error only when the batch could not be sent or ctx ended.
func (c *Client) BatchCall(ctx context.Context, b []BatchElem) error {
	if len(b) == 0 {
		return nil
	}
	if c.http != nil {
		return c.http.batch(ctx, b)
	}
	reqs := make([]*request, 0, len(b))
	defer func() {
		for _, r := range reqs {
			c.release(r)
		}
	}()
	msg := []byte{'['}
	for i := range b {
		r, err := c.open(ctx, b[i].Method, nil, false)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
		if r.msg, err = appendRequest(r.msg[:0], b[i].Method, r.call.ID(), b[i].Args); err != nil {
			return err
		}
		if i > 0 {
			msg = append(msg, ',')
		}
		msg = append(msg, r.msg...)
	}
	msg = append(msg, ']')
	c.queueMessage(msg, reqs...)
	for i, r := range reqs {
		b[i].Error = c.await(ctx, r, b[i].Result)
	}
	return ctx.Err()
}
