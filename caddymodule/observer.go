package caddymodule

// observer.go is what a handler's server tells: calls and peer connections
// become metrics, panics become log entries.

import (
	"context"

	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// handlerObserver is a handler's rpccore.Observer.
type handlerObserver struct {
	*metrics
	*peerMetrics
	handler *Handler // whose logger logs panics
}

// ObservePanic logs a method that panicked; its caller got -32603.
func (o *handlerObserver) ObservePanic(ctx context.Context, method string, v any, stack []byte) {
	fields := []zap.Field{
		zap.String("method", method),
		zap.Any("panic", v),
		zap.ByteString("stack", stack),
	}
	if info := rpccore.RequestInfoFrom(ctx); info != nil {
		fields = append(fields, zap.String("remote_addr", info.RemoteAddr))
	}
	o.handler.logger.Error("method panicked", fields...)
}

// Interface guards
var (
	_ rpccore.PanicObserver = (*handlerObserver)(nil)
	_ rpccore.PeerObserver  = (*handlerObserver)(nil)
)
