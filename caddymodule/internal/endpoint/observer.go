package endpoint

// observer.go is what an endpoint's server tells: calls and peer
// connections become metrics, panics become log entries.

import (
	"context"

	"go.uber.org/zap"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// PeerEvents hears of peer connections: what rpccore.PeerObserver adds to
// rpccore.Observer.
type PeerEvents interface {
	MessagesIn(n int)
	MessagesOut(n int)
	SubscriptionsChanged(delta int)
	NotificationsDropped(n int)
}

// endpointObserver is an endpoint's rpccore.Observer.
type endpointObserver struct {
	*Metrics
	PeerEvents
	logger **zap.Logger // the owner's logger, read when a method panics
}

// ObservePanic logs a method that panicked; its caller got -32603.
func (o *endpointObserver) ObservePanic(ctx context.Context, method string, v any, stack []byte) {
	fields := []zap.Field{
		zap.String("method", method),
		zap.Any("panic", v),
		zap.ByteString("stack", stack),
	}
	if info := rpccore.RequestInfoFrom(ctx); info != nil {
		fields = append(fields, zap.String("remote_addr", info.RemoteAddr))
	}
	(*o.logger).Error("method panicked", fields...)
}

// ObserveResume counts a subscription's resume by its outcome.
func (o *endpointObserver) ObserveResume(recovered bool) {
	outcome := "not_recovered"
	if recovered {
		outcome = "recovered"
	}
	collectors.resumes.WithLabelValues(outcome).Inc()
}

// Interface guards
var (
	_ rpccore.MethodObserver = (*endpointObserver)(nil)
	_ rpccore.PanicObserver  = (*endpointObserver)(nil)
	_ rpccore.PeerObserver   = (*endpointObserver)(nil)
	_ rpccore.ResumeObserver = (*endpointObserver)(nil)
)
