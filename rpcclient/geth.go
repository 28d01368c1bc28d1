package rpcclient

// geth.go holds go-ethereum's names for what the client does, so that a
// program moving from its rpc.Client changes only its import.

import "context"

// DialContext is Dial without options, as go-ethereum names it.
func DialContext(ctx context.Context, rawURL string) (*Client, error) { return Dial(ctx, rawURL) }

// CallContext is Call, as go-ethereum names it.
func (c *Client) CallContext(ctx context.Context, result any, method string, args ...any) error {
	return c.Call(ctx, result, method, args...)
}

// BatchCallContext is BatchCall, as go-ethereum names it.
func (c *Client) BatchCallContext(ctx context.Context, b []BatchElem) error {
	return c.BatchCall(ctx, b)
}

// EthSubscribe subscribes in the "eth" namespace: eth_subscribe(args...).
func (c *Client) EthSubscribe(ctx context.Context, channel any, args ...any) (*ClientSubscription, error) {
	return c.Subscribe(ctx, "eth", channel, args...)
}
