package demo_test

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/streamconn"
)

// floodClient serves the demo on one end of a pipe with the given send
// queue and slow-consumer policy, and returns the other end.
func floodClient(t *testing.T, queue int, policy rpccore.SlowConsumerPolicy) (net.Conn, *bufio.Reader) {
	t.Helper()
	s := rpccore.NewServer()
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	server, client := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = streamconn.New(server, nil, streamconn.Options{}).Serve(ctx, s,
			rpccore.PeerConfig{SendQueue: queue, SlowConsumer: policy})
	}()
	t.Cleanup(func() {
		cancel()
		client.Close()
		<-done
	})
	return client, bufio.NewReader(client)
}

func TestFloodSendsEveryNumberInOrderToASlowReader(t *testing.T) {
	for _, policy := range []rpccore.SlowConsumerPolicy{rpccore.DropOldest, rpccore.Disconnect} {
		c, r := floodClient(t, 4, policy)
		const count = 3000
		go c.Write([]byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["flood",` + strconv.Itoa(count) + `],"id":1}`))
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, `{"jsonrpc":"2.0","result":"0x`) {
			t.Fatalf("subscribe: %q %v", line, err)
		}
		head := `{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":` +
			strings.TrimSuffix(strings.TrimPrefix(line, `{"jsonrpc":"2.0","result":`), ",\"id\":1}\n") + `,"result":`
		for n := 1; n <= count; n++ {
			if n%500 == 0 {
				time.Sleep(5 * time.Millisecond) // the queue of 4 fills while nobody reads
			}
			line, err := r.ReadString('\n')
			if want := head + strconv.Itoa(n) + "}}\n"; err != nil || line != want {
				t.Fatalf("policy %d, notification %d: %q %v, want %q", policy, n, line, err, want)
			}
		}
	}
}

func TestFloodChecksItsCountAndStopsWithTheSubscription(t *testing.T) {
	c, r := floodClient(t, 0, rpccore.DropOldest)
	for _, count := range []string{"0", "1000000001"} {
		go c.Write([]byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["flood",` + count + `],"id":1}`))
		if line, _ := r.ReadString('\n'); !strings.Contains(line, `"code":-32602`) {
			t.Errorf("count %s: %s", count, line)
		}
	}
	go c.Write([]byte(`{"jsonrpc":"2.0","method":"demo_subscribe","params":["flood",1000000000],"id":2}`))
	line, _ := r.ReadString('\n')
	id, ok := strings.CutPrefix(line, `{"jsonrpc":"2.0","result":`)
	if !ok {
		t.Fatalf("subscribe: %s", line)
	}
	id = strings.TrimSuffix(id, ",\"id\":2}\n")
	go c.Write([]byte(`{"jsonrpc":"2.0","method":"demo_unsubscribe","params":[` + id + `],"id":3}`))
	deadline := time.Now().Add(10 * time.Second)
	for {
		line, err := r.ReadString('\n')
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("no answer to the unsubscribe: %v", err)
		}
		if line == `{"jsonrpc":"2.0","result":true,"id":3}`+"\n" {
			break
		}
	}
	// After the answer, at most what was queued before it follows; then
	// nothing more comes.
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	n := 0
	for {
		if _, err := r.ReadString('\n'); err != nil {
			break
		}
		n++
	}
	if n > rpccore.DefaultSendQueue {
		t.Errorf("%d notifications after the unsubscribe answer", n)
	}
}
