package natshub

import (
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// ShareLimits lets the processes sharing this hub (the same NATS, the same
// subject prefix) exchange messages about one rate limit zone, over core
// NATS on <prefix>.rl.<zone> (the zone's name encoded as EncodeTopic
// encodes a topic). receive gets each message another process publishes,
// on one goroutine, and must not keep the slice; a process does not get
// its own. rejoined is called, on a goroutine of its own, each time the
// connection to NATS is made again: core NATS hands a message to the
// subscriptions of the moment, so messages published while this process
// was away from NATS (or stuck on a server that stopped answering) did
// not reach it.
//
// publish sends a message to the other processes and waits for the NATS
// server it reached to confirm it (a flush, within PublishTimeout): nil
// means that server got it and passes it on. While NATS is unreachable it
// fails at once; an error means the message may or may not have gone
// out, and the caller, which sends it again, must let the receivers tell
// the copies apart. A confirmed message can still miss a process that is
// moving to another server, or be lost with its server before that passes
// it on: the jsonrpc handler's rate limits number their messages to ask
// for the missing ones. stop ends the subscription; publish fails after
// it. The messages are opaque to the hub.
func (h *Hub) ShareLimits(zone string, receive func(msg []byte), rejoined func()) (publish func(msg []byte) error, stop func(), err error) {
	if h.closed.Load() {
		return nil, nil, rpccore.ErrHubClosed
	}
	subject := h.opts.SubjectPrefix + ".rl." + EncodeTopic(zone)
	sub, err := h.nc.Subscribe(subject, func(m *nats.Msg) { receive(m.Data) })
	if err != nil {
		return nil, nil, serverError("subscribing on NATS", err)
	}
	if h.nc.IsConnected() {
		// So that the first messages of the others reach this one; when
		// this fails the subscription is made again with the connection.
		_ = h.flush()
	}
	connected := h.nc.StatusChanged(nats.CONNECTED)
	go func() {
		for range connected {
			rejoined()
		}
	}()
	var stopped sync.Once
	publish = func(msg []byte) error {
		if !sub.IsValid() {
			return rpccore.ErrHubClosed
		}
		if err := h.nc.Publish(subject, msg); err != nil {
			return err
		}
		return h.flush()
	}
	stop = func() {
		stopped.Do(func() {
			h.nc.RemoveStatusListener(connected)
			_ = sub.Unsubscribe()
		})
	}
	return publish, stop, nil
}
