package httphandler

// peermetrics.go holds the metrics of WebSocket connections: open
// connections and subscriptions, messages each way, and notifications
// dropped for clients too slow to read them. Like the call metrics, the
// collectors are made once per process and survive reloads.

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
)

var peerCollectors struct {
	once          sync.Once
	connections   prometheus.Gauge
	subscriptions prometheus.Gauge
	messages      *prometheus.CounterVec
	dropped       prometheus.Counter
}

func initPeerCollectors() {
	const ns, sub = "caddy", "jsonrpc"
	peerCollectors.connections = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "websocket_connections",
		Help: "Open JSON-RPC WebSocket connections.",
	})
	peerCollectors.subscriptions = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "subscriptions",
		Help: "Open subscriptions on WebSocket connections.",
	})
	peerCollectors.messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "websocket_messages_total",
		Help: "WebSocket messages, by direction (in: from clients, out: to clients).",
	}, []string{"direction"})
	peerCollectors.dropped = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "notifications_dropped_total",
		Help: "Notifications dropped because a client's send queue was full (slow_consumer drop_oldest).",
	})
}

// registerPeerCollectors registers the WebSocket collectors on reg; doing
// it again for a second handler or a reload is not an error.
func registerPeerCollectors(reg prometheus.Registerer) error {
	peerCollectors.once.Do(initPeerCollectors)
	return conf.Register(reg, peerCollectors.connections, peerCollectors.subscriptions,
		peerCollectors.messages, peerCollectors.dropped)
}

// peerMetrics feeds the collectors from rpccore's PeerEvents.
type peerMetrics struct {
	in, out prometheus.Counter
}

func newPeerMetrics() *peerMetrics {
	peerCollectors.once.Do(initPeerCollectors)
	return &peerMetrics{
		in:  peerCollectors.messages.WithLabelValues("in"),
		out: peerCollectors.messages.WithLabelValues("out"),
	}
}

func (m *peerMetrics) connectionOpened() { peerCollectors.connections.Inc() }
func (m *peerMetrics) connectionClosed() { peerCollectors.connections.Dec() }

// MessagesIn implements rpccore.PeerObserver.
func (m *peerMetrics) MessagesIn(n int) { m.in.Add(float64(n)) }

// MessagesOut implements rpccore.PeerObserver.
func (m *peerMetrics) MessagesOut(n int) { m.out.Add(float64(n)) }

// SubscriptionsChanged implements rpccore.PeerObserver.
func (m *peerMetrics) SubscriptionsChanged(delta int) {
	peerCollectors.subscriptions.Add(float64(delta))
}

// NotificationsDropped implements rpccore.PeerObserver.
func (m *peerMetrics) NotificationsDropped(n int) { peerCollectors.dropped.Add(float64(n)) }
