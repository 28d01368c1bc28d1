package natshub

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// hubMetrics are the process-wide metrics of every NATS hub; each hub adds
// to them, and every Caddy config registers them, so counts survive
// reloads.
type hubMetrics struct {
	messages     *prometheus.CounterVec
	in, out      prometheus.Counter
	historyReads prometheus.Counter
	gapRepairs   prometheus.Counter
	connected    prometheus.Gauge
	servers      *prometheus.GaugeVec
}

var (
	collectors     hubMetrics
	collectorsOnce sync.Once
)

// metrics returns the collectors, made on first use.
func metrics() *hubMetrics {
	collectorsOnce.Do(initCollectors)
	return &collectors
}

func initCollectors() {
	const ns, sub = "caddy", "jsonrpc_hub"
	c := &collectors
	c.messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "nats_messages_total",
		Help: "Hub messages this process sent to NATS (out) and got from its topic subscriptions (in).",
	}, []string{"direction"})
	c.in, c.out = c.messages.WithLabelValues("in"), c.messages.WithLabelValues("out")
	c.historyReads = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "history_reads_total",
		Help: "Reads of a topic's history for a resuming subscriber.",
	})
	c.gapRepairs = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "nats_gap_repairs_total",
		Help: "Times this process read from the history messages that core NATS did not bring it, and delivered them.",
	})
	c.connected = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "nats_connected",
		Help: "NATS hubs of this process that are connected to NATS (1 with one hub, when it is connected).",
	})
	c.servers = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "nats_server",
		Help: "NATS hubs of this process connected to each NATS server, by the server's name.",
	}, []string{"server"})
}

// RegisterMetrics registers the hubs' metrics on reg. Registering them
// again (a second hub, or a reload) is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	c := metrics()
	for _, m := range []prometheus.Collector{c.messages, c.historyReads, c.gapRepairs, c.connected, c.servers} {
		if err := reg.Register(m); err != nil {
			if _, already := errors.AsType[prometheus.AlreadyRegisteredError](err); !already {
				return err
			}
		}
	}
	return nil
}
