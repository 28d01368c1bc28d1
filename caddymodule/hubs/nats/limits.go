package natshub

import (
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// ShareLimits lets the processes sharing this hub (the same NATS, the same
// subject prefix) exchange reports about one rate limit zone, over core
// NATS on <prefix>.rl.<zone> (the zone's name encoded as EncodeTopic
// encodes a topic). receive gets each report another process publishes,
// on one goroutine, and must not keep the slice; a process does not get
// its own reports. publish sends report to the other processes and waits
// for the NATS server it reached to confirm it (a flush, within
// PublishTimeout): nil means that server got it and passes it on. While
// NATS is unreachable it fails at once; an error means the report may
// or may not have gone out, and the caller, which sends it again, must
// let the receivers tell the copies apart. A confirmed report is lost
// only if that server fails before passing it on. stop ends the
// subscription; publish fails after it. The reports are opaque to the
// hub: the jsonrpc handler's rate limits use them to share their counts.
func (h *Hub) ShareLimits(zone string, receive func(report []byte)) (publish func(report []byte) error, stop func(), err error) {
	if h.closed.Load() {
		return nil, nil, rpccore.ErrHubClosed
	}
	subject := h.opts.SubjectPrefix + ".rl." + EncodeTopic(zone)
	sub, err := h.nc.Subscribe(subject, func(m *nats.Msg) { receive(m.Data) })
	if err != nil {
		return nil, nil, serverError("subscribing on NATS", err)
	}
	if h.nc.IsConnected() {
		// So that the first reports of the others reach this one; when
		// this fails the subscription is made again with the connection.
		_ = h.flush()
	}
	var stopped sync.Once
	publish = func(report []byte) error {
		if !sub.IsValid() {
			return rpccore.ErrHubClosed
		}
		if err := h.nc.Publish(subject, report); err != nil {
			return err
		}
		return h.flush()
	}
	stop = func() { stopped.Do(func() { _ = sub.Unsubscribe() }) }
	return publish, stop, nil
}
