package rpcclient

import (
	"context"
	"errors"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// echoServer has echo, which answers the params it received, byte for
// byte ("absent" when it had none).
func echoServer(t *testing.T) *rpccore.Server {
	s := rpccore.NewServer()
	if err := s.Register("echo", rpccore.Raw(func(_ context.Context, params []byte, w *ResultWriter) error {
		if params == nil {
			w.String("absent")
			return nil
		}
		w.String(string(params))
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	return s
}

// ResultWriter is rpccore's, for echoServer's signature.
type ResultWriter = rpccore.ResultWriter

func TestRawParamsAreSentAsTheyAre(t *testing.T) {
	srv := echoServer(t)
	urls := transports(t, srv)
	urls["http"] = startHTTPServer(t, srv).URL
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, url)
			ctx := testContext(t)
			for _, p := range []string{`[1, "two",{"3":3}]`, `{"b":1,"a":[]}`, `[]`, `{}`} {
				got, err := CallT[string](ctx, c, "echo", RawParams(p))
				if err != nil || got != p {
					t.Errorf("params %s: echoed %q, %v", p, got, err)
				}
			}
			if got, err := CallT[string](ctx, c, "echo"); err != nil || got != "absent" {
				t.Errorf("no params: echoed %q, %v", got, err)
			}
			var batched string
			b := []BatchElem{{Method: "echo", Args: []any{RawParams(`[true]`)}, Result: &batched}}
			if err := c.BatchCall(ctx, b); err != nil || b[0].Error != nil || batched != `[true]` {
				t.Errorf("batch: %q, %v, %v", batched, err, b[0].Error)
			}
			for _, bad := range []string{``, `1`, `"s"`, `[1,`, `[1] [2]`} {
				if err := c.Call(ctx, nil, "echo", RawParams(bad)); !errors.Is(err, errRawParams) {
					t.Errorf("RawParams(%q): %v, want errRawParams", bad, err)
				}
			}
			if err := c.Notify(ctx, "echo", RawParams(`{"n":1}`)); err != nil {
				t.Errorf("notify: %v", err)
			}
		})
	}
}
