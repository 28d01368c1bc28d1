package grpcpeer

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// Config describes one run.
type Config struct {
	Addr  string // the server's loopback TCP address
	Conns int    // the number of connections (one grpc.ClientConn each)
	// Depth is the calls in flight on each connection: that many goroutines
	// calling in a loop (unary), or that many calls written ahead of their
	// answers on the connection's one stream.
	Depth int
	// Stream sends the calls over one bidirectional stream per connection
	// instead of one unary call each.
	Stream  bool
	Windows pipeline.Windows // times the run
}

// Run runs cfg and returns the calls per second of each window. Every
// answer is checked; a wrong one ends the run with an error.
func Run(ctx context.Context, cfg Config) ([]float64, error) {
	if err := load.CheckLoopbackAddr(cfg.Addr); err != nil {
		return nil, err
	}
	var answered atomic.Int64
	var conns []*grpc.ClientConn
	g := pipeline.NewGroup(ctx)
	defer g.Stop(func() {
		for _, cc := range conns {
			cc.Close()
		}
	})
	for range cfg.Conns {
		// Each ClientConn is its own HTTP/2 connection.
		cc, err := grpc.NewClient("passthrough:///"+cfg.Addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(codec{})),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
				d := net.Dialer{Control: load.LoopbackOnly}
				return d.DialContext(ctx, "tcp", addr)
			}))
		if err != nil {
			return nil, err
		}
		conns = append(conns, cc)
		if cfg.Stream {
			s, err := cc.NewStream(g.Ctx, &serviceDesc.Streams[0], "/"+service+"/Calls")
			if err != nil {
				return nil, err
			}
			streamCalls(g, s, cfg.Depth, &answered)
			continue
		}
		for i := range cfg.Depth {
			g.Go(func() error { return unaryLoop(g, cc, i, &answered) })
		}
	}
	return cfg.Windows.Rates(g.Ctx, answered.Load)
}

// unaryLoop makes the five calls in turn, starting at the first-th, one at
// a time, until g stops.
func unaryLoop(g *pipeline.Group, cc *grpc.ClientConn, first int, answered *atomic.Int64) error {
	var out msg
	for j := first % len(calls); !g.Stopping(); j = (j + 1) % len(calls) {
		in := msg{B: calls[j].req}
		if err := cc.Invoke(g.Ctx, calls[j].path, &in, &out); err != nil {
			return fmt.Errorf("grpcpeer: %s: %w", calls[j].name, err)
		}
		if !bytes.Equal(out.B, calls[j].want) {
			return fmt.Errorf("grpcpeer: %s answered %x, want %x", calls[j].name, out.B, calls[j].want)
		}
		answered.Add(1)
	}
	return nil
}

// streamCalls keeps depth calls in flight on s: a writer sends a call for
// every answer the reader checks. The answers come in order: the n-th is
// that of the call of id n, the (n mod 5)-th of the five.
func streamCalls(g *pipeline.Group, s grpc.ClientStream, depth int, answered *atomic.Int64) {
	room := make(chan struct{}, depth)
	for range depth {
		room <- struct{}{}
	}
	g.Go(func() error {
		for id := uint32(0); !g.Stopping(); id++ {
			select {
			case <-room:
			case <-s.Context().Done():
				return nil
			}
			j := id % uint32(len(calls))
			if err := s.SendMsg(&msg{B: append(le.AppendUint32([]byte{byte(j)}, id), calls[j].req...)}); err != nil {
				return fmt.Errorf("grpcpeer: stream send: %w", err)
			}
		}
		return nil
	})
	g.Go(func() error {
		var in msg
		for id := uint32(0); ; id++ {
			if err := s.RecvMsg(&in); err != nil {
				return fmt.Errorf("grpcpeer: stream receive: %w", err)
			}
			c := &calls[id%uint32(len(calls))]
			if len(in.B) < 4 || le.Uint32(in.B) != id || !bytes.Equal(in.B[4:], c.want) {
				return fmt.Errorf("grpcpeer: stream answer %x to call %d (%s), want %x", in.B, id, c.name, c.want)
			}
			answered.Add(1)
			room <- struct{}{}
		}
	})
}
