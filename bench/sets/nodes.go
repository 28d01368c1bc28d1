package sets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// The nodes set's cells, metrics and bounds.
const (
	nodesNoHistory = "no history"
	nodesHistory   = "with history"
	nodesRate      = "notifications_per_s"
	// The cores kept busy during the windows by the harness process (the
	// clients) and by the servers (the Caddy nodes and nats-server).
	nodesClientCPU, nodesServerCPU = "client_cores", "server_cores"
	// The publish calls unanswered on each publishing connection, and the
	// messages some subscriber has not read yet, well below the send queue
	// (1,024 by default), so that no notification is dropped.
	nodesInFlight, nodesLag = 16, 256
	natsHubModule           = "jsonrpc.hubs.nats"
)

// Nodes starts nats-server and two bin/caddy nodes on it serving
// Caddyfile.nodes, and measures a delivery (msgload.Delivery) over the two
// nodes and over one node with the local hub, as the set's note says.
func Nodes(ctx context.Context, e *Env) schema.Set {
	p := e.Profile
	n := p.NodesSubscribers
	s := newSet("nodes_broadcast", "nodes",
		fmt.Sprintf("Nodes: notifications per second to %s subscribers over two Caddy nodes", thousands(n)),
		"two bin/caddy processes with Caddyfile.nodes (jsonrpc with the demo service, over ws:// on loopback), "+
			"joined by the NATS hub (jsonrpc.hubs.nats) through one nats-server v2.15.2 (its server package in a child "+
			"process of the harness, JetStream on, its store in a temporary directory), beside the first node's "+
			"local hub on another path; the subscribers are bench's read-mostly WebSocket client (msgload.Reader) in "+
			"the harness process, sharing the machine",
		fmt.Sprintf("each subscriber is a connection of its own subscribed to the chat (demo_subscribe [\"chat\"]); "+
			"two more connections publish (demo_publish [\"chat\", text]) in turn. Over NATS, %s subscribers are on each "+
			"node and one publisher on each; with the local hub every connection is on one node. Probes are published "+
			"until every subscriber has one. Then %d messages are published one at a time, each once every "+
			"subscriber has the one before, and the %d after the warm-up are timed from before the publish call is "+
			"written until the last subscriber has read it (ms). Then the publishers keep publishing, at most %d calls "+
			"unanswered on each and at most %d messages that some subscriber has not read yet (below the send queue, "+
			"so that none is dropped); after %v, the notifications all subscribers read are counted in %s of %v, "+
			"and the cores kept busy meanwhile by the harness (the clients) and by the servers (the Caddy nodes and "+
			"nats-server), from /proc. Once publishing stops every subscriber must have read every message, once. "+
			"History: a hub that keeps the newest 10,000 messages of the chat for 10 minutes (JetStream for NATS). "+
			"One node with the local hub is the most this machine delivers through one Caddy, with the same client "+
			"on the same two cores: the floor the two nodes are read against",
			thousands(n/2), p.BroadcastWarmup+p.BroadcastRuns, p.BroadcastRuns, nodesInFlight, nodesLag, p.NodesWarmup,
			Count(p.Runs, "window", "windows"), p.NodesWindow),
		schema.Metric{Name: nodesRate, Unit: "notifications/s delivered to all subscribers", Better: schema.Higher},
		"hub history")
	s.Cells = []string{nodesNoHistory, nodesHistory}
	e.Bar.Start("nodes: starting nats-server and two Caddy nodes")
	servers, err := startNodes(ctx, e)
	if err != nil {
		e.Bar.Done(Work("nodes", p))
		return failed(s, err)
	}
	defer stopAll(servers)
	e.Bar.Done(nodesStartWork)

	suffix := map[string]string{nodesNoHistory: "", nodesHistory: "-history"}
	cpu := func() (time.Duration, error) {
		var t time.Duration
		var err error
		for _, srv := range servers {
			v, cerr := srv.proc.CPU()
			t, err = t+v, errors.Join(err, cerr)
		}
		return t, err
	}
	clocks := map[string]func() (time.Duration, error){nodesClientCPU: childserve.SelfCPU, nodesServerCPU: cpu}
	// delivery subscribes to hub on each of nodes, and publishes on the first and the last.
	delivery := func(hub string, nodes ...*server) func(int, func(string, ...float64)) error {
		return func(i int, add func(string, ...float64)) error {
			var subs []string
			for _, node := range nodes {
				subs = append(subs, strings.TrimSuffix(node.url, "/rpc")+"/"+hub+suffix[s.Cells[i]])
			}
			session := chat(subs, []string{subs[0], subs[len(subs)-1]}, n)
			session.Timeout = 20 * time.Second
			res, err := msgload.Delivery(ctx, msgload.DeliveryConfig{BroadcastConfig: session,
				LatencyWarmup: p.BroadcastWarmup, LatencyRuns: p.BroadcastRuns,
				Stream:   pipeline.Windows{Warmup: p.NodesWarmup, Length: p.NodesWindow, Count: p.Runs},
				InFlight: nodesInFlight, Lag: nodesLag, Clocks: clocks,
			})
			add(nodesRate, res.Rates...)
			add("ms", millis(res.Latency)...)
			for name, v := range res.Busy {
				add(name, v...)
			}
			return err
		}
	}
	two := target{name: "ours", role: schema.Ours,
		label: fmt.Sprintf("two nodes, NATS hub, %s subscribers on each", thousands(n/2)), work: fixed(nodesStepWork(p)),
		measure: delivery("nats", servers[1], servers[2])}
	one := target{name: "one_node", role: schema.Baseline, label: "one node, local hub",
		work: fixed(nodesStepWork(p)), measure: delivery("local", servers[1])}
	for _, m := range []struct{ name, unit string }{
		{nodesRate, "notifications/s"}, {"ms", "ms until the last subscriber has it"},
		{nodesClientCPU, "cores busy in the harness"}, {nodesServerCPU, "cores busy in the servers"},
	} {
		s.Series = append(s.Series, two.series(m.name, m.unit), one.series(m.name, m.unit))
	}
	// One node first, then two: the same order in every cell.
	if err := e.turns(&s, 1, false, []target{one, two}); err != nil {
		return failed(s, err)
	}
	s.Compare("ours", "one_node")
	return s
}

// startNodes starts nats-server and two Caddy nodes on it, in that order;
// on an error it stops what it started.
func startNodes(ctx context.Context, e *Env) ([]*server, error) {
	if ok, err := caddyproc.HasModule(e.CaddyBin, natsHubModule); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%s has no module %s: rebuild it with ./xcaddy.sh build from a checkout with the NATS hub",
				e.CaddyBin, natsHubModule)
		}
		return nil, err
	}
	nats, err := startChild("nats")(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting nats-server: %w", err)
	}
	servers := []*server{nats}
	for i := range 2 {
		c, err := caddyproc.StartWS(ctx, e.CaddyBin, e.NodesConfig, []string{"BENCH_NATS_URL=" + nats.url})
		if err != nil {
			stopAll(servers)
			return nil, fmt.Errorf("starting Caddy node %d: %w", i+1, err)
		}
		servers = append(servers, &server{"", c.WS, c.Proc, c.Stop})
	}
	return servers, nil
}

// stopAll stops servers, the last first.
func stopAll(servers []*server) {
	for _, s := range slices.Backward(servers) {
		s.stop()
	}
}
