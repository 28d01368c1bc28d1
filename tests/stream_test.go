package tests

// stream_test.go runs bin/caddy with the jsonrpc app's stream listeners and
// calls them over TCP, TLS and a unix socket, as a raw client, with
// go-ethereum's IPC client, across a reload and a stop.

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// streamSite is a bin/caddy serving stream listeners.
type streamSite struct {
	*exampleServer
	tcp, tlsAddr, socket string
}

// streamCaddyfile is a configuration with three stream listeners; the
// placeholders are filled by startStreams.
const streamCaddyfile = `{
	admin localhost:ADMIN
	skip_install_trust
	jsonrpc {
		shutdown_grace 2s
		listen tcp/127.0.0.1:TCP {
			service demo
			max_message 64KiB
		}
		listen tcp/127.0.0.1:TLS {
			service demo
			tls internal
		}
		listen unix/SOCKET|0640 {
			service demo
		}
	}
}
`

// startStreams runs bin/caddy with streamCaddyfile on free ports.
func startStreams(t *testing.T) *streamSite {
	t.Helper()
	s := &streamSite{
		tcp:     fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		tlsAddr: fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		socket:  filepath.Join(t.TempDir(), "rpc.sock"),
	}
	admin := freePort(t)
	caddyfile := s.config(admin)
	s.exampleServer = startCaddy(t, caddyfile, fmt.Sprintf("http://localhost:%d", admin), func() error {
		for _, dial := range []func() (net.Conn, error){
			func() (net.Conn, error) { return net.Dial("tcp", s.tcp) },
			func() (net.Conn, error) { return net.Dial("unix", s.socket) },
			func() (net.Conn, error) {
				return tls.Dial("tcp", s.tlsAddr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // Caddy's internal CA
			},
		} {
			c, err := dial()
			if err != nil {
				return err
			}
			c.Close()
		}
		return nil
	})
	return s
}

func (s *streamSite) config(admin int) string {
	_, tcpPort, _ := net.SplitHostPort(s.tcp)
	_, tlsPort, _ := net.SplitHostPort(s.tlsAddr)
	return strings.NewReplacer("ADMIN", strconv.Itoa(admin), "TCP", tcpPort, "TLS", tlsPort,
		"SOCKET", "/"+s.socket).Replace(streamCaddyfile)
}

// streamClient is a raw connection reading answers line by line.
type streamClient struct {
	net.Conn
	lines *bufio.Reader
}

func dialStream(t *testing.T, network, addr string) *streamClient {
	t.Helper()
	var c net.Conn
	var err error
	if network == "tls" {
		c, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // Caddy's internal CA
	} else {
		c, err = net.Dial(network, addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &streamClient{Conn: c, lines: bufio.NewReaderSize(c, 64<<10)}
}

func (c *streamClient) send(t *testing.T, data string) {
	t.Helper()
	if _, err := io.WriteString(c, data); err != nil {
		t.Fatal(err)
	}
}

func (c *streamClient) line(t *testing.T) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(requestTimeout))
	line, err := c.lines.ReadString('\n')
	if err != nil {
		t.Fatalf("reading an answer: %v (read %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// rest reads until the server closes the connection.
func (c *streamClient) rest(t *testing.T) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(requestTimeout))
	b, err := io.ReadAll(c.lines)
	if err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("reading to the end: %v", err)
	}
	return string(b)
}

func streamCall(method, params string, id int) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(id) + `}`
}

func streamResult(v string, id int) string {
	return `{"jsonrpc":"2.0","result":` + v + `,"id":` + strconv.Itoa(id) + `}`
}

func TestStreamsOverTCPTLSAndUnixSockets(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startStreams(t)
	for _, tt := range []struct{ network, addr string }{{"tcp", s.tcp}, {"tls", s.tlsAddr}, {"unix", s.socket}} {
		t.Run(tt.network, func(t *testing.T) {
			c := dialStream(t, tt.network, tt.addr)
			// Back to back, on lines, and split across writes.
			c.send(t, streamCall("add", "[1,2]", 1)+streamCall("subtract", "[9,4]", 2)+"\n")
			split := streamCall("StringMe", `["a\"}{"]`, 3)
			c.send(t, split[:20])
			time.Sleep(10 * time.Millisecond)
			c.send(t, split[20:]+"\n")
			for _, want := range []string{streamResult("3", 1), streamResult("5", 2), streamResult(`"a\"}{"`, 3)} {
				if got := c.line(t); got != want {
					t.Fatalf("answer %s, want %s", got, want)
				}
			}
			// Bad JSON is answered, and the connection goes on.
			c.send(t, `{"jsonrpc":"2.0","method":}`+"\n")
			if got := c.line(t); got != `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}` {
				t.Fatalf("answer to bad JSON %s", got)
			}
			c.send(t, `[`+streamCall("add", "[2,2]", 4)+`,`+streamCall("add", "[3,3]", 5)+`]`)
			if got := c.line(t); got != "["+streamResult("4", 4)+","+streamResult("6", 5)+"]" {
				t.Fatalf("batch answer %s", got)
			}
		})
	}
	info, err := os.Stat(s.socket)
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode(); mode&os.ModeSocket == 0 || mode.Perm() != 0o640 {
		t.Errorf("socket mode %v, want a socket with 0640", mode)
	}
}

func TestStreamPipelinesTenThousandRequests(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startStreams(t)
	c := dialStream(t, "tcp", s.tcp)
	const n = 10000
	go func() {
		w := bufio.NewWriter(c)
		for i := range n {
			w.WriteString(streamCall("addInt", "["+strconv.Itoa(i)+",1]", i))
		}
		w.Flush()
	}()
	for i := range n {
		if got, want := c.line(t), streamResult(strconv.Itoa(i+1), i); got != want {
			t.Fatalf("answer %d: %s, want %s", i, got, want)
		}
	}
}

func TestStreamRefusesOversizedAndUnframeableInput(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startStreams(t)
	big := dialStream(t, "tcp", s.tcp)
	go io.WriteString(big, `{"jsonrpc":"2.0","method":"StringMe","params":["`+strings.Repeat("x", 1<<20)+`"],"id":1}`)
	if got := big.rest(t); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "limit of 65536 bytes") {
		t.Fatalf("answer to a message over max_message: %q", got)
	}
	stray := dialStream(t, "tcp", s.tcp)
	stray.send(t, streamCall("add", "[1,1]", 1)+"]")
	if got := stray.rest(t); got != streamResult("2", 1)+"\n"+
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"the stream holds bytes that start no JSON value"},"id":null}`+"\n" {
		t.Fatalf("answers around a stray bracket: %q", got)
	}
}

func TestStreamSubscriptions(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startStreams(t)
	c := dialStream(t, "unix", s.socket)
	c.send(t, `{"jsonrpc":"2.0","method":"demo_subscribe","params":["ticks",5],"id":1}`)
	id, ok := strings.CutPrefix(c.line(t), `{"jsonrpc":"2.0","result":"`)
	if !ok {
		t.Fatal("no subscription id")
	}
	id, _, _ = strings.Cut(id, `"`)
	for want := 1; want <= 3; want++ {
		if got := c.line(t); got != `{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"`+id+`","result":`+strconv.Itoa(want)+`}}` {
			t.Fatalf("notification %s", got)
		}
	}
}

func TestGethClientOverIPC(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startStreams(t)
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	c, err := gethrpc.DialIPC(ctx, s.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkCallsAndBatch(t, c)
	_, sub := subscribeTicks(ctx, t, c)
	sub.Unsubscribe()
}

func TestStreamReloadKeepsTheListener(t *testing.T) {
	// Not in parallel: with the other tests beside it, one connection
	// dialled during the reload, of twenty, was once reset.
	s := startStreams(t)
	c := dialStream(t, "tcp", s.tcp)
	c.send(t, streamCall("delay", "[300]", 1))
	time.Sleep(50 * time.Millisecond) // the call is running
	done := make(chan struct{})
	go func() {
		defer close(done)
		reload(t, s.admin, s.exampleServer.caddyfile)
	}()
	// Throughout the reload, the address takes connections and answers.
	for i := range 20 {
		n := dialStream(t, "tcp", s.tcp)
		n.send(t, streamCall("add", "[1,"+strconv.Itoa(i)+"]", i))
		if got := n.line(t); got != streamResult(strconv.Itoa(i+1), i) {
			t.Fatalf("call %d during the reload: %s", i, got)
		}
		n.Close()
		time.Sleep(10 * time.Millisecond)
	}
	<-done
	// The connection of the old configuration got its answer, then closed.
	if got := c.rest(t); got != streamResult("300", 1)+"\n" {
		t.Fatalf("old connection: %q", got)
	}
}

func TestStreamStopDrainsAnswers(t *testing.T) {
	t.Parallel() // its own processes, ports and folders
	s := startStreams(t)
	c := dialStream(t, "tcp", s.tcp)
	c.send(t, streamCall("delay", "[300]", 7))
	time.Sleep(50 * time.Millisecond)
	s.stop(t)
	if got := c.rest(t); got != streamResult("300", 7)+"\n" {
		t.Fatalf("answer on stop: %q", got)
	}
}

func TestSecondCaddyOnTheSameStreamAddress(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startStreams(t)
	admin := freePort(t)
	out, stderr, err := runCaddy(t, "run", "--adapter", "caddyfile", "--config", writeTemp(t, s.config(admin)))
	if err == nil {
		t.Fatalf("a second Caddy started on the same addresses:\n%s%s", out, stderr)
	}
	if !strings.Contains(stderr, "jsonrpc listen 127.0.0.1:") || !strings.Contains(stderr, "in use") {
		t.Errorf("the error does not say which address is taken:\n%s", stderr)
	}
}

// writeTemp writes content to a file of its own and returns its path.
func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStreamMetricsByListener(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	s := startStreams(t)
	c := dialStream(t, "tcp", s.tcp)
	c.send(t, `{"jsonrpc":"2.0","method":"demo_subscribe","params":["chat"],"id":1}`+streamCall("add", "[1,2]", 2))
	c.line(t)
	c.line(t)
	label := `listener="tcp/` + s.tcp + `"`
	want := map[string]float64{
		"caddy_jsonrpc_stream_connections{" + label + "}":                    1,
		"caddy_jsonrpc_stream_subscriptions{" + label + "}":                  1,
		`caddy_jsonrpc_stream_messages_total{direction="in",` + label + "}":  2,
		`caddy_jsonrpc_stream_messages_total{direction="out",` + label + "}": 2,
		`caddy_jsonrpc_calls_total{method="add",outcome="ok"}`:               1,
	}
	var scraped, wrong string
	for deadline := time.Now().Add(requestTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		scraped, wrong = scrape(t, s.admin), ""
		for name, v := range want {
			if got := metricValue(scraped, name); got != v {
				wrong += fmt.Sprintf("%s = %v, want %v; ", name, got, v)
			}
		}
		if wrong == "" {
			return
		}
	}
	t.Fatalf("%s\n%s", wrong, scraped)
}
