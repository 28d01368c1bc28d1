package childserve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/grpcpeer"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
)

// Serve listens on loopback (a unix socket in a fresh temporary directory
// for ipc), writes where it serves and a newline to w, and serves impl
// until ctx ends.
func Serve(ctx context.Context, impl string, w io.Writer) error {
	network, addr, where := "tcp", "127.0.0.1:0", "ws://%s/rpc"
	var serve func(net.Listener) error
	var h http.Handler
	var err error
	switch impl {
	case "ours":
		h, err = oursHandler(ctx)
	case "geth":
		h, err = gethHandler()
	case "fanout":
		h = fanoutHandler(ctx)
	case "fanout_parallel":
		h = parallelFanoutHandler(ctx)
	case "ipc":
		dir, err := os.MkdirTemp("", "bench-ipc-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		network, addr, where = "unix", filepath.Join(dir, "geth.ipc"), "unix %s"
		s := inprocess.NewGethServer()
		defer s.Stop()
		serve = s.ServeListener
	case "grpc":
		s := grpcpeer.NewServer()
		defer s.Stop()
		serve, where = s.Serve, "tcp %s"
	case "bare":
		serve, where = serveBare, "tcp %s"
	case "nats":
		return serveNATS(ctx, w)
	default:
		err = fmt.Errorf("no server %q (see the package's doc)", impl)
	}
	if err != nil {
		return err
	}
	if h != nil {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		defer srv.Close()
		serve = srv.Serve
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		return err
	}
	defer l.Close()
	defer context.AfterFunc(ctx, func() { l.Close() })()
	if _, err := fmt.Fprintf(w, where+"\n", l.Addr()); err != nil {
		return err
	}
	if err := serve(l); ctx.Err() == nil {
		return err
	}
	return nil
}

// serveNATS serves nats-server on a free loopback port, with JetStream in a
// fresh temporary directory, until ctx ends; its URL and a newline go to w.
func serveNATS(ctx context.Context, w io.Writer) error {
	dir, err := os.MkdirTemp("", "bench-nats-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := server.NewServer(&server.Options{
		ServerName: "bench", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		HTTPPort: 0, // no monitoring port
		NoLog:    true, NoSigs: true, JetStream: true, StoreDir: dir,
		// Bounds that a benchmark of seconds never reaches; a confused
		// run cannot fill the disk.
		JetStreamMaxMemory: 256 << 20, JetStreamMaxStore: 1 << 30,
	})
	if err != nil {
		return err
	}
	s.Start()
	defer func() {
		s.Shutdown()
		s.WaitForShutdown()
	}()
	if !s.ReadyForConnections(20 * time.Second) {
		return errors.New("nats-server did not take connections within 20s")
	}
	if _, err := fmt.Fprintln(w, s.ClientURL()); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// bareAnswers are the answers of ids 1 to 5, the five calls as the
// workload numbers them, each with its newline.
var bareAnswers = func() [][]byte {
	out := [][]byte{nil}
	for i, c := range inprocess.Workload {
		out = append(out, []byte(`{"jsonrpc":"2.0","result":`+c.Result+`,"id":`+strconv.Itoa(i+1)+"}\n"))
	}
	return out
}()

// serveBare serves every connection of l until l is closed.
func serveBare(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go bareConn(c)
	}
}

// bareConn answers each line of c, a subscribe with the flood and any other
// with the answer of its id; answers to lines read together go in one write.
func bareConn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 64<<10)
	bw := bufio.NewWriterSize(c, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		i := bytes.Index(line, []byte(`"id":`))
		if i < 0 {
			return
		}
		id := line[i+5:]
		id = id[:bytes.IndexAny(id, ",}")]
		if bytes.Contains(line, []byte(`"method":"demo_subscribe"`)) {
			bareFlood(bw, id)
			return
		}
		n, err := strconv.Atoi(string(id))
		if err != nil || n < 1 || n >= len(bareAnswers) {
			return
		}
		bw.Write(bareAnswers[n])
		if br.Buffered() == 0 && bw.Flush() != nil {
			return
		}
	}
}

// bareFlood answers the subscribe, then writes the notifications 1, 2, 3,
// ... until the connection fails.
func bareFlood(bw *bufio.Writer, id []byte) {
	bw.WriteString(`{"jsonrpc":"2.0","result":"0x1","id":` + string(id) + "}\n")
	head := []byte(`{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":`)
	var note []byte
	for n := int64(1); ; n++ {
		note = append(append(note[:0], head...), strconv.AppendInt(nil, n, 10)...)
		note = append(note, "}}\n"...)
		if _, err := bw.Write(note); err != nil {
			return
		}
	}
}
