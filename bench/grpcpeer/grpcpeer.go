// Package grpcpeer is gRPC-Go as a peer of the stream sets: the five
// benchmark calls as a hand-written grpc.ServiceDesc (no protoc), unary
// methods and one bidirectional stream that carries calls and answers, with
// a small codec of its own, and the load that drives them with a fixed
// number of calls in flight per connection.
//
// The messages are the calls' values in binary (little-endian numbers, raw
// string bytes), the cheapest encoding gRPC could be given: what it costs
// is its transport (HTTP/2 framing, flow control, per-call streams), not a
// text format.
package grpcpeer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/load"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// service is the gRPC service's name; its methods are the five calls, and
// "Calls" the stream.
const service = "bench.Bench"

// msg is every message of the service: its encoded value.
type msg struct{ B []byte }

// codec, forced at both ends, marshals a *msg as its bytes.
type codec struct{}

func (codec) Name() string                  { return "benchbytes" }
func (codec) Marshal(v any) ([]byte, error) { return v.(*msg).B, nil }
func (codec) Unmarshal(data []byte, v any) error {
	m := v.(*msg)
	m.B = append(m.B[:0], data...) // data is gRPC's, reused after return
	return nil
}

// call is one of the five calls: its name and the path of its unary
// method, a request, the answer it must get, and the server's handler.
type call struct {
	name, path string
	req, want  []byte
	handle     func(in []byte) ([]byte, error)
}

// errBadRequest answers a request of the wrong size.
var errBadRequest = errors.New("grpcpeer: bad request")

var le = binary.LittleEndian

func f64(b []byte) float64      { return math.Float64frombits(le.Uint64(b)) }
func putF64(v float64) []byte   { return le.AppendUint64(nil, math.Float64bits(v)) }
func pair(a, b uint64) []byte   { return le.AppendUint64(le.AppendUint64(nil, a), b) }
func nullable(v float32) []byte { return le.AppendUint32([]byte{1}, math.Float32bits(v)) }

// sized is a handler that refuses a request of other than n bytes and
// answers the others with result.
func sized(n int, result func(in []byte) []byte) func([]byte) ([]byte, error) {
	return func(in []byte) ([]byte, error) {
		if len(in) != n {
			return nil, errBadRequest
		}
		return result(in), nil
	}
}

// calls are the five benchmark calls as the workload makes them: add(1, 2),
// addInt(1, 7), NullableFloatToNullableFloat(1.23), Test2(3.456), StringMe("Foo").
var calls = []call{
	{name: "Add", req: pair(math.Float64bits(1), math.Float64bits(2)), want: putF64(3),
		handle: sized(16, func(in []byte) []byte { return putF64(f64(in) + f64(in[8:])) })},
	{name: "AddInt", req: pair(1, 7), want: le.AppendUint64(nil, 8),
		handle: sized(16, func(in []byte) []byte {
			return le.AppendUint64(nil, uint64(int64(le.Uint64(in))+int64(le.Uint64(in[8:]))))
		})},
	{name: "NullableFloatToNullableFloat", req: nullable(1.23), want: nullable(1.23),
		handle: sized(5, func(in []byte) []byte { return append([]byte(nil), in...) })},
	{name: "Test2", req: putF64(3.456), want: putF64(3.456),
		handle: sized(8, func(in []byte) []byte { return putF64(f64(in)) })},
	{name: "StringMe", req: []byte("Foo"), want: []byte("Foo"),
		handle: func(in []byte) ([]byte, error) { return append([]byte(nil), in...), nil }},
}

// serviceDesc describes the service to grpc.Server.RegisterService.
var serviceDesc = grpc.ServiceDesc{
	ServiceName: service,
	HandlerType: (*any)(nil),
	Streams: []grpc.StreamDesc{{StreamName: "Calls", Handler: serveCalls,
		ServerStreams: true, ClientStreams: true}},
}

func init() {
	for i, c := range calls {
		calls[i].path = "/" + service + "/" + c.name
		serviceDesc.Methods = append(serviceDesc.Methods, grpc.MethodDesc{MethodName: c.name,
			Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				var in msg
				if err := dec(&in); err != nil {
					return nil, err
				}
				out, err := c.handle(in.B)
				return &msg{B: out}, err
			}})
	}
}

// On the stream a call is its index among the five (one byte), its id (four
// bytes, little-endian) and its request; the answer is the id and the result.
const streamHeader = 5

// serveCalls answers the calls of one stream in order.
func serveCalls(_ any, stream grpc.ServerStream) error {
	var in msg
	for {
		if err := stream.RecvMsg(&in); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if len(in.B) < streamHeader || int(in.B[0]) >= len(calls) {
			return errBadRequest
		}
		res, err := calls[in.B[0]].handle(in.B[streamHeader:])
		if err != nil {
			return err
		}
		out := append(append(make([]byte, 0, 4+len(res)), in.B[1:streamHeader]...), res...)
		if err := stream.SendMsg(&msg{B: out}); err != nil {
			return err
		}
	}
}

// NewServer returns a grpc.Server with the service and its codec.
func NewServer() *grpc.Server {
	s := grpc.NewServer(grpc.ForceServerCodec(codec{}))
	s.RegisterService(&serviceDesc, nil)
	return s
}

// Config describes one run.
type Config struct {
	Addr  string // the server's loopback TCP address
	Conns int    // the number of connections (one grpc.ClientConn each)
	// Depth is the calls in flight on each connection: that many goroutines
	// calling in a loop (unary), or that many calls written ahead of their
	// answers on the connection's one stream.
	Depth   int
	Stream  bool             // one bidirectional stream per connection, instead of unary calls
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
		// Each goroutine makes the five calls in turn, starting at the
		// first-th, one at a time.
		for first := range cfg.Depth {
			g.Go(func() error {
				var out msg
				for j := first % len(calls); !g.Stopping(); j = (j + 1) % len(calls) {
					if err := cc.Invoke(g.Ctx, calls[j].path, &msg{B: calls[j].req}, &out); err != nil {
						return fmt.Errorf("grpcpeer: %s: %w", calls[j].name, err)
					}
					if !bytes.Equal(out.B, calls[j].want) {
						return fmt.Errorf("grpcpeer: %s answered %x, want %x", calls[j].name, out.B, calls[j].want)
					}
					answered.Add(1)
				}
				return nil
			})
		}
	}
	return cfg.Windows.Rates(g.Ctx, answered.Load)
}

// streamCalls keeps depth calls in flight on s, a call sent for every answer
// checked; the answers come in order, the n-th of id n, the (n mod 5)-th call.
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
