package grpcpeer

import (
	"fmt"

	"google.golang.org/grpc/encoding"
)

// Msg is every message of the service: its encoded value.
type Msg struct{ B []byte }

// codec marshals a *Msg as its bytes.
type codec struct{}

// Codec is the codec both ends force.
var Codec encoding.Codec = codec{}

func (codec) Name() string { return "benchbytes" }

func (codec) Marshal(v any) ([]byte, error) {
	m, ok := v.(*Msg)
	if !ok {
		return nil, fmt.Errorf("grpcpeer: cannot marshal %T", v)
	}
	return m.B, nil
}

func (codec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*Msg)
	if !ok {
		return fmt.Errorf("grpcpeer: cannot unmarshal into %T", v)
	}
	m.B = append(m.B[:0], data...) // data is gRPC's, reused after return
	return nil
}
