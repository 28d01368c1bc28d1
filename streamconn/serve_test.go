package streamconn_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// served is one connection served by streamconn, seen from the client.
type served struct {
	conn   net.Conn
	lines  *bufio.Reader
	cancel context.CancelFunc
	done   chan error
	server *streamconn.Conn
}

// serve listens on network (tcp or unix), serves srv over the one
// connection it accepts, and dials it.
func serve(t *testing.T, network string, srv *rpccore.Server, opts streamconn.Options) *served {
	t.Helper()
	return servePeer(t, network, srv, opts, rpccore.PeerConfig{})
}

// servePeer is serve with the peer's configuration.
func servePeer(t *testing.T, network string, srv *rpccore.Server, opts streamconn.Options, cfg rpccore.PeerConfig) *served {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "rpc.sock")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{cancel: cancel, done: make(chan error, 1)}
	accepted := make(chan *streamconn.Conn, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			s.done <- err
			accepted <- nil
			return
		}
		c := streamconn.New(nc, nil, opts)
		accepted <- c
		s.done <- c.Serve(ctx, srv, cfg)
	}()
	if s.conn, err = net.Dial(network, l.Addr().String()); err != nil {
		t.Fatal(err)
	}
	s.server = <-accepted
	s.lines = bufio.NewReader(s.conn)
	t.Cleanup(func() {
		cancel()
		s.conn.Close()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			t.Error("the connection was still served 5 s after the test")
		}
	})
	return s
}

func (s *served) write(t *testing.T, data string) {
	t.Helper()
	if _, err := s.conn.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
}

// line reads one answer line.
func (s *served) line(t *testing.T) string {
	t.Helper()
	s.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := s.lines.ReadString('\n')
	if err != nil {
		t.Fatalf("reading an answer: %v (read %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// closed checks that the server closed the connection.
func (s *served) closed(t *testing.T) {
	t.Helper()
	s.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if rest, err := io.ReadAll(s.lines); err != nil || len(rest) > 0 {
		t.Fatalf("after the last answer: %q, %v; want the connection closed", rest, err)
	}
}

func demoServer(t *testing.T, methods rpccore.Methods) *rpccore.Server {
	t.Helper()
	srv := rpccore.NewServer()
	if err := demo.Register(srv); err != nil {
		t.Fatal(err)
	}
	if err := srv.RegisterMethods(methods); err != nil {
		t.Fatal(err)
	}
	return srv
}

func call(method, params string, id int) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(id) + `}`
}

func result(v string, id int) string {
	return `{"jsonrpc":"2.0","result":` + v + `,"id":` + strconv.Itoa(id) + `}`
}

func TestValuesHoweverTheyArrive(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			s := serve(t, network, demoServer(t, nil), streamconn.Options{})
			// Back to back, on lines, with spaces, and split across writes.
			s.write(t, call("add", "[1,2]", 1)+call("add", "[3,4]", 2)+"\n")
			s.write(t, "  "+call("subtract", "[10,3]", 3)+"\r\n\t")
			third := call("StringMe", `["a}\"{"]`, 4)
			for _, part := range []string{third[:7], third[7:30], third[30:]} {
				s.write(t, part)
				time.Sleep(5 * time.Millisecond)
			}
			for _, want := range []string{result("3", 1), result("7", 2), result("7", 3), result(`"a}\"{"`, 4)} {
				if got := s.line(t); got != want {
					t.Fatalf("answer %s, want %s", got, want)
				}
			}
		})
	}
}

func TestManyPipelinedRequests(t *testing.T) {
	s := serve(t, "tcp", demoServer(t, nil), streamconn.Options{})
	const n = 10000
	go func() {
		w := bufio.NewWriter(s.conn)
		for i := range n {
			w.WriteString(call("addInt", "["+strconv.Itoa(i)+",1]", i))
		}
		w.Flush()
	}()
	for i := range n {
		if got, want := s.line(t), result(strconv.Itoa(i+1), i); got != want {
			t.Fatalf("answer %d: %s, want %s", i, got, want)
		}
	}
}

func TestBadJSONKeepsTheConnection(t *testing.T) {
	s := serve(t, "tcp", demoServer(t, nil), streamconn.Options{})
	parseError := `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`
	s.write(t, `{"jsonrpc":"2.0",,"id":1}`+"\n")
	if got := s.line(t); got != parseError {
		t.Fatalf("answer %s, want %s", got, parseError)
	}
	s.write(t, "hello\n")
	if got := s.line(t); got != parseError {
		t.Fatalf("answer to a bare word %s, want %s", got, parseError)
	}
	s.write(t, call("add", "[1,1]", 9))
	if got := s.line(t); got != result("2", 9) {
		t.Fatalf("answer after bad input %s", got)
	}
}

func TestUnframeableInputClosesAfterAnswering(t *testing.T) {
	s := serve(t, "tcp", demoServer(t, nil), streamconn.Options{})
	s.write(t, call("add", "[1,1]", 1)+"}"+call("add", "[2,2]", 2))
	if got := s.line(t); got != result("2", 1) {
		t.Fatalf("answer before the stray byte %s", got)
	}
	if got := s.line(t); !strings.Contains(got, `"code":-32700`) || !strings.HasSuffix(got, `"id":null}`) {
		t.Fatalf("answer to the stray byte %s", got)
	}
	s.closed(t)
}

func TestMessageTooLarge(t *testing.T) {
	s := serve(t, "tcp", demoServer(t, nil), streamconn.Options{MaxMessage: 1024})
	// A megabyte: the server answers and closes long before reading it all.
	big := `{"jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("x", 1<<20) + `"],"id":1}`
	go s.conn.Write([]byte(big))
	if got := s.line(t); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "limit of 1024 bytes") {
		t.Fatalf("answer %s", got)
	}
	s.closed(t)
}

func TestEndOfInputStillAnswers(t *testing.T) {
	srv := demoServer(t, rpccore.Methods{"slow": rpccore.Func1(func(ctx context.Context, ms int) (int, error) {
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return ms, nil
	}, "ms").Blocking()})
	s := serve(t, "tcp", srv, streamconn.Options{})
	s.write(t, call("slow", "[50]", 1)+call("add", "[1,2]", 2))
	s.conn.(*net.TCPConn).CloseWrite()
	got := []string{s.line(t), s.line(t)}
	if got[0] != result("3", 2) || got[1] != result("50", 1) {
		t.Fatalf("answers %q", got)
	}
	s.closed(t)
	if err := <-s.done; err != nil {
		t.Errorf("Serve after the end of input: %v", err)
	}
	s.done <- nil
}

func TestShutdownWritesComputedAnswers(t *testing.T) {
	started := make(chan struct{})
	srv := demoServer(t, rpccore.Methods{"wait": rpccore.Proc0(func(ctx context.Context) error {
		close(started)
		time.Sleep(100 * time.Millisecond)
		return nil
	}).Blocking()})
	s := serve(t, "tcp", srv, streamconn.Options{})
	s.write(t, `{"jsonrpc":"2.0","method":"wait","id":1}`)
	<-started
	s.cancel()
	if got := s.line(t); got != result("null", 1) {
		t.Fatalf("answer %s", got)
	}
	s.closed(t)
}

func TestContentLengthFraming(t *testing.T) {
	s := serve(t, "unix", demoServer(t, nil), streamconn.Options{Framing: streamconn.ContentLength})
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	a, b := call("add", "[1,2]", 1), call("StringMe", `["é"]`, 2)
	s.write(t, frame(a)+"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"+frame(b)[:20])
	s.write(t, frame(b)[20:])
	for _, want := range []string{result("3", 1), result(`"é"`, 2)} {
		s.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		header, err := s.lines.ReadString('\n')
		if err != nil || header != fmt.Sprintf("Content-Length: %d\r\n", len(want)) {
			t.Fatalf("header %q, %v", header, err)
		}
		if blank, _ := s.lines.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("after the header %q", blank)
		}
		body := make([]byte, len(want))
		if _, err := io.ReadFull(s.lines, body); err != nil || string(body) != want {
			t.Fatalf("body %q, %v; want %s", body, err, want)
		}
	}
	s.write(t, "Content-Lenght: 3\r\n\r\n{}")
	s.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, _ := io.ReadAll(s.lines)
	if !strings.Contains(string(rest), `"code":-32700`) {
		t.Fatalf("answer to a bad header %q", rest)
	}
}

func TestContentLengthTooLarge(t *testing.T) {
	s := serve(t, "tcp", demoServer(t, nil), streamconn.Options{Framing: streamconn.ContentLength, MaxMessage: 100})
	s.write(t, "Content-Length: 1000000\r\n\r\n{")
	s.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, _ := io.ReadAll(s.lines)
	if !strings.Contains(string(rest), `"code":-32600`) || !strings.Contains(string(rest), "limit of 100 bytes") {
		t.Fatalf("answer %q", rest)
	}
}

func TestIdleTimeout(t *testing.T) {
	s := serve(t, "tcp", demoServer(t, nil), streamconn.Options{IdleTimeout: 100 * time.Millisecond})
	s.write(t, call("add", "[1,2]", 1))
	if got := s.line(t); got != result("3", 1) {
		t.Fatalf("answer %s", got)
	}
	start := time.Now()
	s.closed(t)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("closed after %v, want about 100ms", d)
	}
	if err := <-s.done; !errors.Is(err, errTimeout) && err != nil && !isTimeout(err) {
		t.Errorf("Serve: %v, want a timeout", err)
	}
	s.done <- nil
}

var errTimeout = errors.New("timeout")

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestSubscriptionsOverAStream(t *testing.T) {
	s := serve(t, "tcp", demoServer(t, nil), streamconn.Options{})
	s.write(t, `{"jsonrpc":"2.0","method":"demo_subscribe","params":["ticks",5],"id":1}`)
	answer := s.line(t)
	id, ok := strings.CutPrefix(answer, `{"jsonrpc":"2.0","result":"`)
	if !ok {
		t.Fatalf("subscribe answer %s", answer)
	}
	id, _, _ = strings.Cut(id, `"`)
	for want := 1; want <= 3; want++ {
		note := s.line(t)
		if note != `{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"`+id+`","result":`+strconv.Itoa(want)+`}}` {
			t.Fatalf("notification %s", note)
		}
	}
}

// TestClientThatDoesNotReadStopsBeingRead sends requests without reading
// the answers: once the send queue is full the server stops reading, so
// the client's writes block, and every answer still comes, in order, once
// the client reads.
func TestClientThatDoesNotReadStopsBeingRead(t *testing.T) {
	s := servePeer(t, "tcp", demoServer(t, nil), streamconn.Options{}, rpccore.PeerConfig{SendQueue: 4})
	req := []byte(call("StringMe", `["`+strings.Repeat("x", 200)+`"]`, 1))
	const limit = 256 << 20
	written := 0
	for written < limit {
		s.conn.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := s.conn.Write(req)
		written += n
		if err != nil {
			if !isTimeout(err) {
				t.Fatal(err)
			}
			break
		}
	}
	if written >= limit {
		t.Fatalf("wrote %d MiB without the server pushing back", written>>20)
	}
	t.Logf("the server stopped reading after %d KiB", written>>10)
	s.conn.SetWriteDeadline(time.Time{})
	whole := written / len(req)
	if written%len(req) != 0 {
		// Finish the request the deadline cut, now that the client reads.
		go s.conn.Write(req[written%len(req):])
		whole++
	}
	want := result(`"`+strings.Repeat("x", 200)+`"`, 1)
	for i := range whole {
		if got := s.line(t); got != want {
			t.Fatalf("answer %d of %d: %.80s", i, whole, got)
		}
	}
}
