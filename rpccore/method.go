package rpccore

// method.go defines Method, the registered form of a procedure, and the
// param handling that every typed form shares.

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Method is a procedure ready to be registered: the function, how its params
// are named and decoded, and how its result is encoded. Build one with Func0
// to Func4, Proc0 to Proc3, Variadic, Struct or Raw.
type Method struct {
	params   []paramSpec
	call     func(ctx context.Context, params callParams, dst []byte) ([]byte, error)
	blocking bool
	err      error

	// What discovery documents read (describe.go); calls never do.
	result   reflect.Type // R of the typed forms; nil for Raw
	raw      bool         // made with Raw
	variadic bool         // made with Variadic
	doc      Doc
}

// callParams is a call's params as the scan found them: the raw value
// (nil when absent) and, for an array, its element count (-1 when not
// counted) and where its first elements lie, so that positional params
// need no second look.
type callParams struct {
	raw []byte
	jsontext.Elements
}

// rawParams wraps params that no scan has indexed.
func rawParams(raw []byte) callParams {
	return callParams{raw: raw, Elements: jsontext.Elements{N: -1}}
}

// paramSpec describes one named param.
type paramSpec struct {
	name     string
	typ      reflect.Type
	optional bool // absent or null is allowed
	def      any  // value used when absent; nil for the zero value
}

// nullableType is implemented by every Nullable instance.
type nullableMarker interface{ nullable() }

func (Nullable[T]) nullable() {}

var nullableType = reflect.TypeFor[nullableMarker]()

// paramOf describes a param of type T named name.
func paramOf[T any](name string) paramSpec {
	t := reflect.TypeFor[T]()
	return paramSpec{
		name:     name,
		typ:      t,
		optional: t.Kind() == reflect.Pointer || t.Implements(nullableType),
	}
}

// newMethod checks the param names and returns a Method with them.
func newMethod(params ...paramSpec) *Method {
	m := &Method{params: params}
	seen := make(map[string]bool, len(params))
	for _, p := range params {
		switch {
		case p.name == "":
			m.err = errors.New("rpccore: a param has an empty name")
		case seen[p.name]:
			m.err = errors.New("rpccore: param name " + strconv.Quote(p.name) + " is used twice")
		}
		seen[p.name] = true
	}
	return m
}

// Default makes the named param optional: when a call leaves it out, the
// method receives v, which must have the param's exact type.
func (m *Method) Default(param string, v any) *Method {
	for i := range m.params {
		p := &m.params[i]
		if p.name != param {
			continue
		}
		if reflect.TypeOf(v) != p.typ {
			m.err = errors.New("rpccore: default for param " + strconv.Quote(param) +
				" has type " + reflect.TypeOf(v).String() + ", want " + p.typ.String())
			return m
		}
		p.def, p.optional = v, true
		return m
	}
	m.err = errors.New("rpccore: default for unknown param " + strconv.Quote(param))
	return m
}

// Blocking marks the method as one that waits (on I/O, a lock, a timer).
// Blocking calls within one batch run concurrently, up to the server's
// batch concurrency; other calls run one after another.
func (m *Method) Blocking() *Method {
	m.blocking = true
	return m
}

// split sorts the raw params into raw, one slot per declared param (nil for
// absent), for positional (array) and named (object) params alike, and
// checks the count, the names and the required params.
func (m *Method) split(p *callParams, raw [][]byte) error {
	params := p.raw
	if params == nil {
		return m.checkRequired(raw)
	}
	var err error
	if params[0] == '[' {
		n := p.N
		switch {
		case n > len(raw):
			return invalidParams("too many params: got " + strconv.Itoa(n) + ", want at most " + strconv.Itoa(len(raw)))
		case n >= 0 && n <= len(p.At):
			for i := range n {
				raw[i] = params[p.At[i][0]:p.At[i][1]]
			}
		default:
			n = 0
			for i := jsontext.SkipSpace(params, 1); params[i] != ']'; n++ {
				end := jsontext.SkipValue(params, i)
				if n < len(raw) {
					raw[n] = params[i:end]
				}
				i = jsontext.SkipSpace(params, end)
				if params[i] == ',' {
					i = jsontext.SkipSpace(params, i+1)
				}
			}
			if n > len(raw) {
				return invalidParams("too many params: got " + strconv.Itoa(n) + ", want at most " + strconv.Itoa(len(raw)))
			}
		}
		if n == len(raw) {
			return nil // every param given
		}
	} else {
		jsontext.EachMember(params, func(key, val []byte) bool {
			i := m.paramIndex(key)
			if i < 0 {
				var scratch [64]byte
				err = invalidParams("unknown param " + strconv.Quote(string(jsontext.AppendUnquote(scratch[:0], key))))
				return false
			}
			raw[i] = val
			return true
		})
		if err != nil {
			return err
		}
	}
	return m.checkRequired(raw)
}

// paramIndex returns the index of the param whose name is the raw (maybe
// escaped) key, or -1.
func (m *Method) paramIndex(key []byte) int {
	if bytes.IndexByte(key, '\\') >= 0 {
		var scratch [64]byte
		key = jsontext.AppendUnquote(scratch[:0], key)
	}
	for i := range m.params {
		if m.params[i].name == string(key) {
			return i
		}
	}
	return -1
}

// checkRequired fails when a required param is absent or null.
func (m *Method) checkRequired(raw [][]byte) error {
	for i, r := range raw {
		p := &m.params[i]
		if p.optional {
			continue
		}
		if r == nil {
			return invalidParams("missing required param " + strconv.Quote(p.name))
		}
	}
	return nil
}

// decodeParam decodes param i of m from raw: the declared default or
// the zero value when absent, an invalid-params error naming the param when
// the value does not fit.
func decodeParam[T any](m *Method, i int, raw []byte, dec decodeFunc[T]) (T, error) {
	if raw == nil {
		d, _ := m.params[i].def.(T)
		return d, nil
	}
	v, err := dec(raw)
	if err != nil {
		return v, invalidParams("param " + strconv.Quote(m.params[i].name) + ": " + err.Error())
	}
	return v, nil
}

// write appends r as the call's result; an encoding failure is -32603.
func (enc encodeFunc[R]) write(dst []byte, r R) ([]byte, error) {
	out, err := enc(dst, r)
	if err != nil {
		return dst, &Error{Code: CodeInternalError, Message: "Internal error", Data: "result cannot be encoded: " + err.Error()}
	}
	return out, nil
}
