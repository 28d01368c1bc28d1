package rpcclient

// params.go encodes requests: the envelope by hand, the params of common
// types by hand too, any other through goccy/go-json without letting the
// arguments escape, so that a call with numbers or strings allocates
// nothing here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	gojson "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Named holds params by name: a call with Named as its only argument sends
// them as an object.
type Named map[string]any

// byName wraps a value to be sent as the params object.
type byName struct{ v any }

// ByName makes v (a struct, or a map with string keys) the params object
// of a call, as its only argument: c.Call(ctx, &r, "subtract",
// rpcclient.ByName(Args{Minuend: 42, Subtrahend: 23})).
func ByName(v any) any { return byName{v} }

// appendRequest appends a Request object; a nil id makes a notification.
func appendRequest(dst []byte, method string, id []byte, args []any) ([]byte, error) {
	dst = appendRequestHead(dst, method)
	if len(args) > 0 {
		var err error
		if dst, err = appendParams(append(dst, `,"params":`...), args); err != nil {
			return dst, err
		}
	}
	return appendRequestTail(dst, id), nil
}

// appendRequestHead appends a Request object up to its params. The members
// come in the order most clients write them, version, method, params and
// id, which servers (this module's among them) read fastest.
func appendRequestHead(dst []byte, method string) []byte {
	return jsontext.AppendQuote(append(dst, `{"jsonrpc":"2.0","method":`...), method)
}

// appendRequestTail appends the id, when there is one, and ends the object.
func appendRequestTail(dst, id []byte) []byte {
	if id != nil {
		dst = append(append(dst, `,"id":`...), id...)
	}
	return append(dst, '}')
}

// appendRequestParams appends a Request object whose params are already
// encoded.
func appendRequestParams(dst []byte, method string, id, params []byte) []byte {
	dst = append(append(appendRequestHead(dst, method), `,"params":`...), params...)
	return appendRequestTail(dst, id)
}

// appendParams appends the params of args: an object for one Named or
// ByName argument, RawParams as they are, an array otherwise.
func appendParams(dst []byte, args []any) ([]byte, error) {
	if len(args) == 1 {
		switch a := args[0].(type) {
		case Named:
			return appendNamed(dst, a)
		case RawParams:
			return appendRawParams(dst, a)
		case byName:
			start := len(dst)
			dst, err := appendValue(dst, a.v)
			if err == nil && (len(dst) == start || dst[start] != '{') {
				err = errors.New("rpcclient: ByName needs a value that encodes as a JSON object")
			}
			return dst, err
		}
	}
	dst = append(dst, '[')
	for i, a := range args {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendValue(dst, a); err != nil {
			return dst, fmt.Errorf("rpcclient: argument %d: %w", i+1, err)
		}
	}
	return append(dst, ']'), nil
}

// appendNamed appends params by name, sorted by name.
func appendNamed(dst []byte, n Named) ([]byte, error) {
	names := make([]string, 0, len(n))
	for k := range n {
		names = append(names, k)
	}
	slices.Sort(names)
	dst = append(dst, '{')
	for i, k := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsontext.AppendQuote(dst, k), ':')
		var err error
		if dst, err = appendValue(dst, n[k]); err != nil {
			return dst, fmt.Errorf("rpcclient: param %q: %w", k, err)
		}
	}
	return append(dst, '}'), nil
}

// errNotFinite is a float that JSON cannot hold.
var errNotFinite = errors.New("NaN and infinities have no JSON form")

// appendValue appends the JSON form of v.
func appendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case float64:
		return appendFloat(dst, x, 64)
	case float32:
		return appendFloat(dst, float64(x), 32)
	case string:
		return jsontext.AppendQuote(dst, x), nil
	case rpccore.RawJSON:
		return appendRaw(dst, x)
	case json.RawMessage:
		return appendRaw(dst, x)
	}
	raw, err := gojson.MarshalNoEscape(v)
	if err != nil {
		return dst, err
	}
	return append(dst, raw...), nil
}

// appendFloat appends f in its shortest form.
func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	out, ok := jsontext.AppendFloat(dst, f, bits)
	if !ok {
		return dst, errNotFinite
	}
	return out, nil
}

// appendRaw appends raw JSON after checking it.
func appendRaw(dst, raw []byte) ([]byte, error) {
	if !jsontext.Valid(raw) {
		return dst, errors.New("raw JSON is not valid JSON text")
	}
	return append(dst, raw...), nil
}
