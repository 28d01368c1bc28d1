package natshub

import "time"

// deliversAlone reports whether this process's subscribers get its
// publishes at once, without NATS: with history, while NATS has never
// been reached, or has been lost for publish_timeout or longer. A shorter
// loss, such as the client's fail-over to another server of a cluster,
// has publishes wait for NATS, so that they reach every subscriber with
// their positions in the stream.
func (h *Hub) deliversAlone() bool {
	if h.nc.IsConnected() {
		return false
	}
	lost := h.lostAt.Load()
	return lost == 0 || time.Since(time.Unix(0, lost)) >= h.opts.PublishTimeout
}

// promoteQueue hands this process's subscribers, in order, the queued
// messages they did not get yet: NATS has been lost for long enough that
// they get what this process publishes at once. The copies of those
// messages that reach NATS after all are not delivered again (see
// deliverLocal).
func (h *Hub) promoteQueue() {
	h.pubMu.Lock()
	defer h.pubMu.Unlock()
	for i := range h.queue {
		if o := &h.queue[i]; !o.local {
			o.local = true
			h.deliverLocal(*o)
		}
	}
}
