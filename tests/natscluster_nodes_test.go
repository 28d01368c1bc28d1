package tests

// natscluster_nodes_test.go runs two bin/caddy nodes whose NATS hub keeps
// its history in a stream of three replicas on a cluster of three NATS
// servers (natscluster_test.go), and kills the server that leads the
// stream, the one a node is connected to, while both nodes publish and
// subscribers drop their connections and resume.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clusterStream is the stream of the cluster tests' hub: its subject
// prefix, which has no dot.
const clusterStream = "cluster_test"

// clusterHub is the hub block of a node on NATS at urls, its connection
// named name, with a history of replicas copies. A resume waits four
// publish_timeouts for the stream: 3s lets it wait out the election of a
// new leader, which JetStream starts 4 to 9 seconds after the last word
// of the lost one.
func clusterHub(urls []string, name string, replicas int) string {
	return `hub nats {
				url ` + strings.Join(urls, " ") + `
				subject_prefix ` + clusterStream + `
				name ` + name + `
				publish_timeout 3s
				history {
					replicas ` + strconv.Itoa(replicas) + `
					max_msgs 100000
					max_age 10m
				}
			}`
}

// clusterNodes starts a cluster and two nodes on it, their connections
// named cluster-a and cluster-b.
func clusterNodes(t *testing.T) (*natsCluster, *node, *node) {
	t.Helper()
	caddyBinary(t)
	c := startNATSCluster(t)
	return c, startNode(t, "a", clusterHub(c.URLs(), "cluster-a", 3), true),
		startNode(t, "b", clusterHub(c.URLs(), "cluster-b", 3), true)
}

func TestClusterNodesKeepEveryAcknowledgedPublishWhenTheStreamLeaderDies(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	c, a, b := clusterNodes(t)
	// The hardest case: the server that leads the stream is the one node
	// a is connected to.
	lost := c.clientServer("cluster-a")
	if lost < 0 {
		t.Fatal("node a is not connected to any server of the cluster")
	}
	c.moveStreamLeader(clusterStream, lost)

	steadyA, steadyB := startSubscriber(t, "steady on a", a), startSubscriber(t, "steady on b", b)
	duringLoss := startSubscriber(t, "resumes during the loss", a)
	acrossLoss := startSubscriber(t, "drops during the loss, resumes after", b)
	afterLoss := startSubscriber(t, "drops and resumes after the loss", a)
	subs := []*chatSubscriber{steadyA, steadyB, duringLoss, acrossLoss, afterLoss}
	pubs := []*chatPublisher{startPublisher(t, a, "a", 20*time.Millisecond), startPublisher(t, b, "b", 20*time.Millisecond)}

	time.Sleep(time.Second)
	killed := time.Now()
	c.kill(lost)
	t.Logf("killed %s, which led the stream and had node a's connection", c.name(lost))
	time.Sleep(500 * time.Millisecond)
	resumed := make(chan struct{})
	go func() { // its resume waits out the stream's election
		defer close(resumed)
		duringLoss.resume(a, duringLoss.drop())
	}()
	across := acrossLoss.drop()
	leader := c.streamLeader(clusterStream)
	t.Logf("%s leads the stream %s after the kill", c.name(leader), time.Since(killed).Round(time.Millisecond))
	// The loss is over once both nodes deliver again.
	deliveredAgain(t, steadyA, steadyB)
	t.Logf("both nodes deliver again %s after the kill", time.Since(killed).Round(time.Millisecond))
	acrossLoss.resume(a, across)
	afterLoss.resume(b, afterLoss.drop())
	time.Sleep(time.Second)
	for _, p := range pubs {
		p.finish(t)
		t.Logf("publisher %s: %d of %d publishes acknowledged", p.prefix, len(p.acked), p.sent)
	}
	<-resumed

	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		all := true
		for _, s := range subs {
			all = all && s.has(pubs)
		}
		if all {
			break
		}
	}
	time.Sleep(200 * time.Millisecond) // for a copy that would come late
	for _, s := range subs {
		s.check(pubs)
	}

	// The node connected to the lost server names the server it moved to.
	moved := lastServer(t, a)
	if moved == "" || moved == c.name(lost) {
		t.Errorf("node a's last \"connected to NATS\" names server %q, want another than the killed %s", moved, c.name(lost))
	} else {
		wantMetrics(t, scrape(t, a.admin), `caddy_jsonrpc_hub_nats_server{server="`+moved+`"} 1`)
		if strings.Contains(scrape(t, a.admin), `caddy_jsonrpc_hub_nats_server{server="`+c.name(lost)+`"} 1`) {
			t.Errorf("node a's gauge still counts it on %s", c.name(lost))
		}
	}

	// The killed server, started again, catches up with the stream.
	c.restart(lost)
	want, err := c.stream(c.streamLeader(clusterStream), clusterStream)
	if err != nil || want == nil {
		t.Fatalf("the stream on its leader: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got, err := c.stream(lost, clusterStream)
		if err == nil && got != nil && got.State.LastSeq == want.State.LastSeq && got.State.Msgs == want.State.Msgs {
			t.Logf("%s holds the stream's %d messages again, %s after its kill", c.name(lost), got.State.Msgs,
				time.Since(killed).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's copy of the stream after its restart: %+v (%v); the leader's: %+v", c.name(lost), got, err, want.State)
		}
	}
}

// deliveredAgain waits until each subscriber got 20 more notifications,
// 20s at most.
func deliveredAgain(t *testing.T, subs ...*chatSubscriber) {
	t.Helper()
	from := make([]int, len(subs))
	for i, s := range subs {
		from[i] = len(s.messages())
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		again := true
		for i, s := range subs {
			again = again && len(s.messages()) >= from[i]+20
		}
		if again {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscribers got nothing new for 20s")
		}
	}
}

// lastServer returns the server named by the last "connected to NATS" of
// n's log.
func lastServer(t *testing.T, n *node) string {
	t.Helper()
	server := ""
	for line := range strings.Lines(n.server.stderr.String()) {
		var entry struct {
			Msg    string `json:"msg"`
			Server string `json:"server"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "connected to NATS" {
			server = entry.Server
		}
	}
	return server
}

func TestClusterNodesRefuseMoreReplicasThanServers(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	caddyBinary(t)
	c := startNATSCluster(t)
	single := startNATS(t)
	for _, tt := range []struct {
		name     string
		urls     []string
		replicas int
	}{
		{"replicas 5 on a cluster of 3", c.URLs(), 5},
		{"replicas 3 on a single server", []string{single.URL}, 3},
		{"replicas 6, more than JetStream keeps", c.URLs(), 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runNodeToExit(t, clusterHub(tt.urls, "refused", tt.replicas))
			if err == nil {
				t.Fatalf("bin/caddy ran, want it to refuse the configuration:\n%s", tail(out, 20))
			}
			if !strings.Contains(out, "replicas") {
				t.Fatalf("bin/caddy exited (%v) without naming replicas:\n%s", err, tail(out, 20))
			}
			t.Logf("bin/caddy exited (%v): %s", err, errorLine(out, "replicas"))
		})
	}
	t.Run("replicas 3 on a cluster of 3", func(t *testing.T) {
		startNode(t, "ok", clusterHub(c.URLs(), "accepted", 3), true)
		for i := range clusterSize {
			st, err := c.stream(i, clusterStream)
			if err != nil || st == nil || st.Cluster == nil || len(st.Cluster.Replicas) != clusterSize-1 {
				t.Fatalf("%s's copy of the stream: %+v %v, want one of 3", c.name(i), st, err)
			}
		}
	})
}

// runNodeToExit runs a node with hub and returns its output once it
// exits, or fails the test if it still runs after 20s.
func runNodeToExit(t *testing.T, hub string) (string, error) {
	t.Helper()
	caddyfile := strings.NewReplacer("ADMIN", strconv.Itoa(freePort(t)), "HTTPS", strconv.Itoa(freePort(t)),
		"HTTP", strconv.Itoa(freePort(t)), "TCP", strconv.Itoa(freePort(t)), "HUB", hub).Replace(nodeCaddyfile)
	file := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(file, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, caddyBinary(t), "run", "--config", file, "--adapter", "caddyfile")
	cmd.Env = caddyEnv(t)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("bin/caddy still ran after 20s:\n%s", tail(string(out), 20))
	}
	return string(out), err
}

// errorLine returns the last line of out that holds word.
func errorLine(out, word string) string {
	line := ""
	for l := range strings.Lines(out) {
		if strings.Contains(l, word) {
			line = strings.TrimSpace(l)
		}
	}
	return fmt.Sprint(line)
}
