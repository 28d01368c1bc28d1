package grpcpeer

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"google.golang.org/grpc"
)

// ServiceName is the gRPC service; its methods are the five calls, and
// "Calls" the stream.
const ServiceName = "bench.Bench"

// call is one of the five calls: its name, a request, the answer it must
// get, and the server's handler.
type call struct {
	name      string
	req, want []byte
	handle    func(in []byte) ([]byte, error)
}

// errBadRequest answers a request of the wrong size.
var errBadRequest = errors.New("grpcpeer: bad request")

func f64(b []byte) float64    { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
func putF64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }
func pair(a, b uint64) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, a), b)
}
func nullable(v float32) []byte {
	return binary.LittleEndian.AppendUint32([]byte{1}, math.Float32bits(v))
}
func sized(n int, in []byte) bool { return len(in) == n }

// calls are the five benchmark calls, as the workload makes them:
// add(1, 2), addInt(1, 7), NullableFloatToNullableFloat(1.23), Test2(3.456),
// StringMe("Foo").
var calls = []call{
	{name: "Add", req: pair(math.Float64bits(1), math.Float64bits(2)), want: putF64(3),
		handle: func(in []byte) ([]byte, error) {
			if !sized(16, in) {
				return nil, errBadRequest
			}
			return putF64(f64(in) + f64(in[8:])), nil
		}},
	{name: "AddInt", req: pair(1, 7), want: binary.LittleEndian.AppendUint64(nil, 8),
		handle: func(in []byte) ([]byte, error) {
			if !sized(16, in) {
				return nil, errBadRequest
			}
			a, b := int64(binary.LittleEndian.Uint64(in)), int64(binary.LittleEndian.Uint64(in[8:]))
			return binary.LittleEndian.AppendUint64(nil, uint64(a+b)), nil
		}},
	{name: "NullableFloatToNullableFloat", req: nullable(1.23), want: nullable(1.23),
		handle: func(in []byte) ([]byte, error) {
			if !sized(5, in) && !(len(in) == 1 && in[0] == 0) {
				return nil, errBadRequest
			}
			return append([]byte(nil), in...), nil
		}},
	{name: "Test2", req: putF64(3.456), want: putF64(3.456),
		handle: func(in []byte) ([]byte, error) {
			if !sized(8, in) {
				return nil, errBadRequest
			}
			return putF64(f64(in)), nil
		}},
	{name: "StringMe", req: []byte("Foo"), want: []byte("Foo"),
		handle: func(in []byte) ([]byte, error) { return append([]byte(nil), in...), nil }},
}

// service is what ServiceDesc's handlers are registered for.
type service interface{}

// ServiceDesc describes the service to grpc.Server.RegisterService.
var ServiceDesc = grpc.ServiceDesc{
	ServiceName: ServiceName,
	HandlerType: (*service)(nil),
	Streams: []grpc.StreamDesc{{StreamName: "Calls", Handler: serveCalls,
		ServerStreams: true, ClientStreams: true}},
}

func init() {
	for _, c := range calls {
		ServiceDesc.Methods = append(ServiceDesc.Methods, grpc.MethodDesc{MethodName: c.name, Handler: unary(c.handle)})
	}
}

func unary(handle func([]byte) ([]byte, error)) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		var in Msg
		if err := dec(&in); err != nil {
			return nil, err
		}
		out, err := handle(in.B)
		if err != nil {
			return nil, err
		}
		return &Msg{B: out}, nil
	}
}

// On the stream a call is its index among the five (one byte), its id
// (four bytes, little-endian) and its request; the answer is the id and the
// result.
const streamHeader = 5

// serveCalls answers the calls of one stream in order.
func serveCalls(_ any, stream grpc.ServerStream) error {
	var in Msg
	for {
		if err := stream.RecvMsg(&in); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
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
		if err := stream.SendMsg(&Msg{B: out}); err != nil {
			return err
		}
	}
}

// NewServer returns a grpc.Server with the service and the codec.
func NewServer() *grpc.Server {
	s := grpc.NewServer(grpc.ForceServerCodec(Codec))
	s.RegisterService(&ServiceDesc, nil)
	return s
}
