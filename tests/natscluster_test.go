package tests

// natscluster_test.go runs a cluster of three NATS servers with JetStream
// on loopback, each a process of its own (natsprocess_test.go), as NATS
// runs in production: a test kills one with SIGKILL (after freezing it
// with SIGSTOP, if it likes), starts it again on the same ports and
// store, and asks which server leads a stream and what each server's
// copy of it holds.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// clusterSize is how many servers a test cluster has.
const clusterSize = 3

// natsCluster is a running cluster of clusterSize NATS servers.
type natsCluster struct {
	t       *testing.T
	servers []*clusterServer
}

// clusterServer is one server of a cluster, and its process while it runs.
type clusterServer struct {
	config natsServerConfig
	URL    string // nats://127.0.0.1:<port>
	http   string // http://127.0.0.1:<monitoring port>
	log    *syncBuffer
	cmd    *exec.Cmd // nil while stopped
	stdin  *os.File  // the process's standard input: it ends when this closes
	exited chan struct{}
}

// clusterSlot lets one test at a time run a cluster: three servers with
// JetStream, two bin/caddy nodes and their clients are a load that slows
// the tests running beside them, on a small machine, past their timeouts.
var clusterSlot = make(chan struct{}, 1)

// startNATSCluster starts a cluster of three servers and waits until
// JetStream runs on all of them under one meta leader, once no other test
// runs one. The servers are killed at the end of the test, and their logs
// printed if it failed.
func startNATSCluster(t *testing.T) *natsCluster {
	t.Helper()
	clusterSlot <- struct{}{}
	t.Cleanup(func() { <-clusterSlot })
	c := &natsCluster{t: t}
	clusterPorts := make([]int, clusterSize)
	for i := range clusterPorts {
		clusterPorts[i] = freePort(t)
	}
	name := "test-cluster-" + strconv.Itoa(clusterPorts[0])
	for i := range clusterSize {
		var routes []int
		for j, p := range clusterPorts {
			if j != i {
				routes = append(routes, p)
			}
		}
		port, httpPort := freePort(t), freePort(t)
		c.servers = append(c.servers, &clusterServer{
			config: natsServerConfig{
				Name:        fmt.Sprintf("n%d-%d", i, port),
				Cluster:     name,
				Port:        port,
				ClusterPort: clusterPorts[i],
				HTTPPort:    httpPort,
				Routes:      routes,
				StoreDir:    filepath.Join(t.TempDir(), "jetstream"),
			},
			URL:  "nats://127.0.0.1:" + strconv.Itoa(port),
			http: "http://127.0.0.1:" + strconv.Itoa(httpPort),
			log:  new(syncBuffer),
		})
	}
	t.Cleanup(func() {
		for i, s := range c.servers {
			if s.cmd != nil {
				c.kill(i)
			}
			if t.Failed() {
				t.Logf("NATS server %s's log, without its routes' comings and goings:\n%s",
					s.config.Name, tail(withoutRouteNoise(s.log.String()), 60))
			}
		}
	})
	for i := range c.servers {
		c.start(i)
	}
	c.waitReady()
	return c
}

// URLs returns the client URLs of the servers, in order.
func (c *natsCluster) URLs() []string {
	urls := make([]string, len(c.servers))
	for i, s := range c.servers {
		urls[i] = s.URL
	}
	return urls
}

// name returns the server name of server i.
func (c *natsCluster) name(i int) string { return c.servers[i].config.Name }

// index returns the index of the server named name, or -1.
func (c *natsCluster) index(name string) int {
	for i, s := range c.servers {
		if s.config.Name == name {
			return i
		}
	}
	return -1
}

// start runs server i's process.
func (c *natsCluster) start(i int) {
	c.t.Helper()
	s := c.servers[i]
	config, err := json.Marshal(s.config)
	if err != nil {
		c.t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		c.t.Fatal(err)
	}
	// os.Executable, not os.Args[0]: caddytest, which other tests of this
	// binary run, sets os.Args to a caddy command line.
	self, err := os.Executable()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), natsServerEnv+"="+string(config))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, s.log, s.log
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	r.Close()
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.cmd, s.stdin, s.exited = cmd, w, exited
}

// kill ends server i's process with SIGKILL and waits until it is gone.
func (c *natsCluster) kill(i int) {
	s := c.servers[i]
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.stdin.Close()
	s.cmd = nil
}

// freeze stops server i's process with SIGSTOP, as a machine dropping off
// the network: its connections stay open and nothing answers on them,
// until kill.
func (c *natsCluster) freeze(i int) {
	c.t.Helper()
	if err := c.servers[i].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		c.t.Fatal(err)
	}
}

// restart starts server i again, on its ports and store, and waits until
// it has joined JetStream's cluster again.
func (c *natsCluster) restart(i int) {
	c.t.Helper()
	c.kill(i)
	c.start(i)
	c.waitReady()
}

// running returns the indexes of the servers that run.
func (c *natsCluster) running() []int {
	var up []int
	for i, s := range c.servers {
		if s.cmd != nil {
			up = append(up, i)
		}
	}
	return up
}

// waitReady waits until every running server answers its health check
// (JetStream enabled and current with its meta leader) and names the same
// meta leader.
func (c *natsCluster) waitReady() {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := c.ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the NATS cluster is not ready after 20s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ready answers why the cluster is not ready yet, or nil.
func (c *natsCluster) ready() error {
	leader := ""
	for _, i := range c.running() {
		s := c.servers[i]
		select {
		case <-s.exited:
			return fmt.Errorf("NATS server %s exited:\n%s", s.config.Name, tail(s.log.String(), 20))
		default:
		}
		var health struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		}
		if err := getJSON(s.http+"/healthz", &health); err != nil || health.Status != "ok" {
			return fmt.Errorf("%s: health %q %q %v", s.config.Name, health.Status, health.Error, err)
		}
		var jsz server.JSInfo
		if err := getJSON(s.http+"/jsz", &jsz); err != nil {
			return err
		}
		if jsz.Meta == nil || jsz.Meta.Leader == "" {
			return fmt.Errorf("%s knows no meta leader yet", s.config.Name)
		}
		if leader != "" && jsz.Meta.Leader != leader {
			return fmt.Errorf("meta leaders %s and %s", leader, jsz.Meta.Leader)
		}
		leader = jsz.Meta.Leader
	}
	return nil
}

// stream returns server i's copy of the stream named name, or nil when
// that server holds none.
func (c *natsCluster) stream(i int, name string) (*server.StreamDetail, error) {
	var jsz server.JSInfo
	if err := getJSON(c.servers[i].http+"/jsz?streams=true", &jsz); err != nil {
		return nil, err
	}
	for _, a := range jsz.AccountDetails {
		for _, st := range a.Streams {
			if st.Name == name {
				return &st, nil
			}
		}
	}
	return nil, nil
}

// streamLeader returns the index of the server that leads the stream
// named name, as the running servers see it, waiting up to 20s for one
// to be elected.
func (c *natsCluster) streamLeader(name string) int {
	c.t.Helper()
	var why error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, i := range c.running() {
			st, err := c.stream(i, name)
			switch {
			case err != nil:
				why = err
			case st == nil || st.Cluster == nil || st.Cluster.Leader == "":
				why = fmt.Errorf("%s knows no leader of stream %s", c.name(i), name)
			default:
				if l := c.index(st.Cluster.Leader); l >= 0 && c.servers[l].cmd != nil {
					return l
				}
				why = fmt.Errorf("stream %s's leader %s is not running", name, st.Cluster.Leader)
			}
		}
	}
	c.t.Fatalf("no leader of stream %s: %v", name, why)
	return -1
}

// moveStreamLeader has the leader of the stream named name step down in
// favour of server to, and waits until to leads it.
func (c *natsCluster) moveStreamLeader(name string, to int) {
	c.t.Helper()
	if c.streamLeader(name) == to {
		return
	}
	nc, err := nats.Connect(strings.Join(c.URLs(), ","))
	if err != nil {
		c.t.Fatal(err)
	}
	defer nc.Close()
	req, _ := json.Marshal(server.JSApiLeaderStepdownRequest{Placement: &server.Placement{Preferred: c.name(to)}})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if m, err := nc.Request(fmt.Sprintf(server.JSApiStreamLeaderStepDownT, name), req, 2*time.Second); err == nil {
			var res server.JSApiStreamLeaderStepDownResponse
			if json.Unmarshal(m.Data, &res) == nil && res.Success {
				for wait := time.Now().Add(5 * time.Second); time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
					if c.streamLeader(name) == to {
						return
					}
				}
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the leader of stream %s did not move to %s", name, c.name(to))
		}
	}
}

// clientServer returns the index of the server that has a client
// connection named conn, or -1.
func (c *natsCluster) clientServer(conn string) int {
	c.t.Helper()
	for _, i := range c.running() {
		var connz server.Connz
		if err := getJSON(c.servers[i].http+"/connz", &connz); err != nil {
			c.t.Fatal(err)
		}
		for _, ci := range connz.Conns {
			if ci.Name == conn {
				return i
			}
		}
	}
	return -1
}

// getJSON GETs url and decodes its JSON answer into v.
func getJSON(url string, v any) error {
	res, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return json.NewDecoder(res.Body).Decode(v)
}

// withoutRouteNoise drops the log lines of routes connecting, closing
// and failing to connect, which a killed server fills its peers' logs with.
func withoutRouteNoise(log string) string {
	var b strings.Builder
	for line := range strings.Lines(log) {
		if !strings.Contains(line, "Route connection created") && !strings.Contains(line, "Router connection closed") &&
			!strings.Contains(line, "Error trying to connect to route") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
