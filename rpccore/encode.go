package rpccore

// encode.go holds the encoders for results: one function per Go type, picked
// once when a method is registered. Each appends the JSON form of a value.

import (
	"errors"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// encodeFunc appends the JSON encoding of v to dst.
type encodeFunc[T any] func(dst []byte, v T) ([]byte, error)

var errNonFinite = errors.New("rpccore: NaN or infinite number has no JSON form")

// appendFloat appends f the way encoding/json does; NaN and infinities
// are an error.
func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	out, ok := jsontext.AppendFloat(dst, f, bits)
	if !ok {
		return dst, errNonFinite
	}
	return out, nil
}

func encodeFloat64(dst []byte, v float64) ([]byte, error) { return appendFloat(dst, v, 64) }

func encodeFloat32(dst []byte, v float32) ([]byte, error) { return appendFloat(dst, float64(v), 32) }

func encodeSigned[T signed](dst []byte, v T) ([]byte, error) {
	return strconv.AppendInt(dst, int64(v), 10), nil
}

func encodeUnsigned[T unsigned](dst []byte, v T) ([]byte, error) {
	return strconv.AppendUint(dst, uint64(v), 10), nil
}

func encodeBool(dst []byte, v bool) ([]byte, error) {
	return strconv.AppendBool(dst, v), nil
}

func encodeString(dst []byte, v string) ([]byte, error) {
	return jsontext.AppendQuote(dst, v), nil
}

func encodeRaw(dst []byte, v RawJSON) ([]byte, error) {
	if v == nil {
		return append(dst, "null"...), nil
	}
	if !Valid(v) {
		return dst, errInvalidRaw
	}
	return append(dst, v...), nil
}

// encodeSlice builds an encoder for []E; a nil slice is null.
func encodeSlice[E any](elem encodeFunc[E]) encodeFunc[[]E] {
	return func(dst []byte, v []E) ([]byte, error) {
		if v == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = elem(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
}

// encodePointer builds an encoder for *E; nil is null.
func encodePointer[E any](elem encodeFunc[E]) encodeFunc[*E] {
	return func(dst []byte, v *E) ([]byte, error) {
		if v == nil {
			return append(dst, "null"...), nil
		}
		return elem(dst, *v)
	}
}

// encodeNullable builds an encoder for Nullable[E]; invalid is null.
func encodeNullable[E any](elem encodeFunc[E]) encodeFunc[Nullable[E]] {
	return func(dst []byte, v Nullable[E]) ([]byte, error) {
		if !v.Valid {
			return append(dst, "null"...), nil
		}
		return elem(dst, v.Value)
	}
}

// encodeWithLibrary encodes any other type through goccy/go-json.
func encodeWithLibrary[T any](dst []byte, v T) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// encoderFor picks the encoder for T. It is called at registration only.
func encoderFor[T any]() encodeFunc[T] {
	var f any
	switch any((*T)(nil)).(type) {
	case *float64:
		f = encodeFunc[float64](encodeFloat64)
	case *float32:
		f = encodeFunc[float32](encodeFloat32)
	case *int:
		f = encodeFunc[int](encodeSigned[int])
	case *int8:
		f = encodeFunc[int8](encodeSigned[int8])
	case *int16:
		f = encodeFunc[int16](encodeSigned[int16])
	case *int32:
		f = encodeFunc[int32](encodeSigned[int32])
	case *int64:
		f = encodeFunc[int64](encodeSigned[int64])
	case *uint:
		f = encodeFunc[uint](encodeUnsigned[uint])
	case *uint8:
		f = encodeFunc[uint8](encodeUnsigned[uint8])
	case *uint16:
		f = encodeFunc[uint16](encodeUnsigned[uint16])
	case *uint32:
		f = encodeFunc[uint32](encodeUnsigned[uint32])
	case *uint64:
		f = encodeFunc[uint64](encodeUnsigned[uint64])
	case *bool:
		f = encodeFunc[bool](encodeBool)
	case *string:
		f = encodeFunc[string](encodeString)
	case *RawJSON:
		f = encodeFunc[RawJSON](encodeRaw)
	case *none:
		f = encodeFunc[none](encodeNone)
	case *[]float64:
		f = encodeSlice(encodeFloat64)
	case *[]int:
		f = encodeSlice(encodeSigned[int])
	case *[]int64:
		f = encodeSlice(encodeSigned[int64])
	case *[]string:
		f = encodeSlice(encodeString)
	case *[]bool:
		f = encodeSlice(encodeBool)
	case **float64:
		f = encodePointer(encodeFloat64)
	case **float32:
		f = encodePointer(encodeFloat32)
	case **int:
		f = encodePointer(encodeSigned[int])
	case **int64:
		f = encodePointer(encodeSigned[int64])
	case **string:
		f = encodePointer(encodeString)
	case **bool:
		f = encodePointer(encodeBool)
	case *Nullable[float64]:
		f = encodeNullable(encodeFloat64)
	case *Nullable[float32]:
		f = encodeNullable(encodeFloat32)
	case *Nullable[int]:
		f = encodeNullable(encodeSigned[int])
	case *Nullable[int64]:
		f = encodeNullable(encodeSigned[int64])
	case *Nullable[string]:
		f = encodeNullable(encodeString)
	case *Nullable[bool]:
		f = encodeNullable(encodeBool)
	default:
		return encodeWithLibrary[T]
	}
	return f.(encodeFunc[T])
}
