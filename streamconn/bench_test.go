package streamconn_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// workload is the five benchmark requests.
var workload = []string{
	`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
	`{"jsonrpc":"2.0","method":"addInt","params":[1,7],"id":2}`,
	`{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[1.23],"id":3}`,
	`{"jsonrpc":"2.0","method":"Test2","params":[3.456],"id":4}`,
	`{"jsonrpc":"2.0","method":"StringMe","params":["Foo"],"id":5}`,
}

// listenDemo serves the demo over streams on a loopback TCP address, every
// connection it accepts, until the benchmark ends.
func listenDemo(b *testing.B) string {
	srv := rpccore.NewServer()
	if err := demo.Register(srv); err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(func() {
		cancel()
		l.Close()
	})
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			go streamconn.New(nc, nil, streamconn.Options{}).Serve(ctx, srv, rpccore.PeerConfig{})
		}
	}()
	return l.Addr().String()
}

// BenchmarkPipelined measures calls over one loopback TCP connection with
// 256 in flight: the client writes 256 requests at a time and reads their
// answers, line by line, while the next window goes out.
func BenchmarkPipelined(b *testing.B) {
	addr := listenDemo(b)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const window = 256
	var batch []byte
	for i := range window {
		batch = append(batch, workload[i%len(workload)]...)
	}
	rounds := b.N/window + 1
	b.ResetTimer()
	go func() {
		for range rounds {
			if _, err := conn.Write(batch); err != nil {
				return
			}
		}
	}()
	r := bufio.NewReaderSize(conn, 64<<10)
	for n := 0; n < rounds*window; n++ {
		line, err := r.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","result":`)) {
			b.Fatalf("answer %q", line)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rounds*window)/b.Elapsed().Seconds(), "calls/s")
	_ = io.EOF
}
