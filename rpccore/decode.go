package rpccore

// decode.go holds the decoders for params: one function per Go type, picked
// once when a method is registered. Each takes the raw JSON value (already
// validated by the scan) and stores the Go value.

import (
	"bytes"
	"reflect"

	json "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// decodeFunc decodes one raw JSON value. It returns values rather than
// filling a pointer so that nothing escapes to the heap.
type decodeFunc[T any] func(raw []byte) (T, error)

// typeError describes a value of the wrong JSON kind for a Go type.
type typeError struct {
	want string
	got  byte
}

func (e *typeError) Error() string {
	return "want " + e.want + ", got " + kindName(e.got)
}

// kindName names the JSON kind a value starting with c has.
func kindName(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// rangeError describes a number that does not fit the Go type.
type rangeError struct {
	raw  string
	kind string
}

func (e *rangeError) Error() string {
	return "number " + e.raw + " does not fit " + e.kind
}

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

func decodeFloat64(raw []byte) (float64, error) {
	if !isNumberStart(raw[0]) {
		return 0, &typeError{"number", raw[0]}
	}
	f, err := jsontext.ParseFloat64(raw)
	if err != nil {
		return 0, &rangeError{string(raw), "float64"}
	}
	return f, nil
}

func decodeFloat32(raw []byte) (float32, error) {
	if !isNumberStart(raw[0]) {
		return 0, &typeError{"number", raw[0]}
	}
	f, err := jsontext.ParseFloat32(raw)
	if err != nil {
		return 0, &rangeError{string(raw), "float32"}
	}
	return f, nil
}

type signed interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

func decodeSigned[T signed](raw []byte) (T, error) {
	if !isNumberStart(raw[0]) {
		return 0, &typeError{"integer", raw[0]}
	}
	n, ok := jsontext.ParseInt(raw)
	if !ok || int64(T(n)) != n {
		return 0, &rangeError{string(raw), reflect.TypeFor[T]().String()}
	}
	return T(n), nil
}

func decodeUnsigned[T unsigned](raw []byte) (T, error) {
	if !isNumberStart(raw[0]) {
		return 0, &typeError{"integer", raw[0]}
	}
	n, ok := jsontext.ParseUint(raw)
	if !ok || uint64(T(n)) != n {
		return 0, &rangeError{string(raw), reflect.TypeFor[T]().String()}
	}
	return T(n), nil
}

func decodeBool(raw []byte) (bool, error) {
	switch raw[0] {
	case 't':
		return true, nil
	case 'f':
		return false, nil
	}
	return false, &typeError{"boolean", raw[0]}
}

func decodeString(raw []byte) (string, error) {
	if raw[0] != '"' {
		return "", &typeError{"string", raw[0]}
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		return string(jsontext.AppendUnquote(make([]byte, 0, len(body)), body)), nil
	}
	return string(body), nil
}

// decodeSlice builds a decoder for []E from E's decoder.
func decodeSlice[E any](elem decodeFunc[E]) decodeFunc[[]E] {
	return func(raw []byte) ([]E, error) {
		if raw[0] != '[' {
			return nil, &typeError{"array", raw[0]}
		}
		out := []E{}
		var err error
		jsontext.EachElement(raw, func(el []byte) bool {
			var e E
			if e, err = elem(el); err != nil {
				return false
			}
			out = append(out, e)
			return true
		})
		return out, err
	}
}

// decodePointer builds a decoder for *E: null leaves nil.
func decodePointer[E any](elem decodeFunc[E]) decodeFunc[*E] {
	return func(raw []byte) (*E, error) {
		if raw[0] == 'n' {
			return nil, nil
		}
		e, err := elem(raw)
		if err != nil {
			return nil, err
		}
		return &e, nil
	}
}

// decodeNullable builds a decoder for Nullable[E]: null leaves it invalid.
func decodeNullable[E any](elem decodeFunc[E]) decodeFunc[Nullable[E]] {
	return func(raw []byte) (Nullable[E], error) {
		if raw[0] == 'n' {
			return Nullable[E]{}, nil
		}
		e, err := elem(raw)
		return Nullable[E]{Value: e, Valid: err == nil}, err
	}
}

// decodeRaw keeps the raw JSON, copied so that it outlives the request.
func decodeRaw(raw []byte) (RawJSON, error) {
	return append(RawJSON(nil), raw...), nil
}

// decodeWithLibrary decodes any other type through goccy/go-json.
func decodeWithLibrary[T any](raw []byte) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// decoderFor picks the decoder for T. It is called at registration only.
func decoderFor[T any]() decodeFunc[T] {
	var f any
	switch any((*T)(nil)).(type) {
	case *float64:
		f = decodeFunc[float64](decodeFloat64)
	case *float32:
		f = decodeFunc[float32](decodeFloat32)
	case *int:
		f = decodeFunc[int](decodeSigned[int])
	case *int8:
		f = decodeFunc[int8](decodeSigned[int8])
	case *int16:
		f = decodeFunc[int16](decodeSigned[int16])
	case *int32:
		f = decodeFunc[int32](decodeSigned[int32])
	case *int64:
		f = decodeFunc[int64](decodeSigned[int64])
	case *uint:
		f = decodeFunc[uint](decodeUnsigned[uint])
	case *uint8:
		f = decodeFunc[uint8](decodeUnsigned[uint8])
	case *uint16:
		f = decodeFunc[uint16](decodeUnsigned[uint16])
	case *uint32:
		f = decodeFunc[uint32](decodeUnsigned[uint32])
	case *uint64:
		f = decodeFunc[uint64](decodeUnsigned[uint64])
	case *bool:
		f = decodeFunc[bool](decodeBool)
	case *string:
		f = decodeFunc[string](decodeString)
	case *RawJSON:
		f = decodeFunc[RawJSON](decodeRaw)
	case *[]float64:
		f = decodeSlice(decodeFloat64)
	case *[]int:
		f = decodeSlice(decodeSigned[int])
	case *[]int64:
		f = decodeSlice(decodeSigned[int64])
	case *[]string:
		f = decodeSlice(decodeString)
	case *[]bool:
		f = decodeSlice(decodeBool)
	case **float64:
		f = decodePointer(decodeFloat64)
	case **float32:
		f = decodePointer(decodeFloat32)
	case **int:
		f = decodePointer(decodeSigned[int])
	case **int64:
		f = decodePointer(decodeSigned[int64])
	case **string:
		f = decodePointer(decodeString)
	case **bool:
		f = decodePointer(decodeBool)
	case *Nullable[float64]:
		f = decodeNullable(decodeFloat64)
	case *Nullable[float32]:
		f = decodeNullable(decodeFloat32)
	case *Nullable[int]:
		f = decodeNullable(decodeSigned[int])
	case *Nullable[int64]:
		f = decodeNullable(decodeSigned[int64])
	case *Nullable[string]:
		f = decodeNullable(decodeString)
	case *Nullable[bool]:
		f = decodeNullable(decodeBool)
	default:
		return decodeWithLibrary[T]
	}
	return f.(decodeFunc[T])
}
