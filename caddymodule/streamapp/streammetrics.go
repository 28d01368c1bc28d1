package streamapp

// streammetrics.go holds the metrics of stream connections, labelled by
// listener (its first address): open connections and subscriptions,
// messages each way, and notifications dropped for slow clients. Like the
// other metrics, the collectors are made once per process and survive
// reloads.

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/conf"
)

var streamCollectors struct {
	once          sync.Once
	connections   *prometheus.GaugeVec
	subscriptions *prometheus.GaugeVec
	messages      *prometheus.CounterVec
	dropped       *prometheus.CounterVec
}

func initStreamCollectors() {
	const ns, sub = "caddy", "jsonrpc"
	streamCollectors.connections = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "stream_connections",
		Help: "Open JSON-RPC stream (TCP and unix socket) connections, by listener.",
	}, []string{"listener"})
	streamCollectors.subscriptions = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "stream_subscriptions",
		Help: "Open subscriptions on stream connections, by listener.",
	}, []string{"listener"})
	streamCollectors.messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "stream_messages_total",
		Help: "Stream messages, by listener and direction (in: from clients, out: to clients).",
	}, []string{"listener", "direction"})
	streamCollectors.dropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "stream_notifications_dropped_total",
		Help: "Notifications dropped because a stream client's send queue was full, by listener.",
	}, []string{"listener"})
}

// registerStreamCollectors registers the stream collectors on reg.
func registerStreamCollectors(reg prometheus.Registerer) error {
	streamCollectors.once.Do(initStreamCollectors)
	return conf.Register(reg, streamCollectors.connections, streamCollectors.subscriptions,
		streamCollectors.messages, streamCollectors.dropped)
}

// streamMetrics are one listener's series.
type streamMetrics struct {
	connections, subscriptions prometheus.Gauge
	in, out, dropped           prometheus.Counter
}

func newStreamMetrics(listener string) *streamMetrics {
	streamCollectors.once.Do(initStreamCollectors)
	return &streamMetrics{
		connections:   streamCollectors.connections.WithLabelValues(listener),
		subscriptions: streamCollectors.subscriptions.WithLabelValues(listener),
		in:            streamCollectors.messages.WithLabelValues(listener, "in"),
		out:           streamCollectors.messages.WithLabelValues(listener, "out"),
		dropped:       streamCollectors.dropped.WithLabelValues(listener),
	}
}

// MessagesIn counts messages read.
func (m *streamMetrics) MessagesIn(n int) { m.in.Add(float64(n)) }

// MessagesOut counts messages written.
func (m *streamMetrics) MessagesOut(n int) { m.out.Add(float64(n)) }

// SubscriptionsChanged counts subscriptions opened and ended.
func (m *streamMetrics) SubscriptionsChanged(delta int) { m.subscriptions.Add(float64(delta)) }

// NotificationsDropped counts notifications dropped for a slow client.
func (m *streamMetrics) NotificationsDropped(n int) { m.dropped.Add(float64(n)) }
