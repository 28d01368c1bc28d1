package rpccore

// struct.go builds Methods whose params are the fields of a struct.

import (
	"context"
	"errors"
	"reflect"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Struct makes a Method whose params are the exported fields of the struct
// P, named by their json tags (or field names), in field order for
// positional calls. A field is optional when it is a pointer, a Nullable or
// tagged omitempty; the others are required. P is decoded with
// goccy/go-json.
func Struct[P, R any](fn func(context.Context, P) (R, error)) *Method {
	specs, err := structParams(reflect.TypeFor[P]())
	m := newMethod(specs...)
	if err != nil {
		m.err = err
	}
	m.result = reflect.TypeFor[R]()
	enc := encoderFor[R]()
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		raw := make([][]byte, len(m.params))
		if err := m.split(&params, raw); err != nil {
			return dst, err
		}
		var p P
		obj := params.raw
		if obj == nil || obj[0] == '[' {
			obj = m.namedObject(raw)
		}
		if err := json.Unmarshal(obj, &p); err != nil {
			return dst, invalidParams(err.Error())
		}
		r, err := fn(ctx, p)
		if err != nil {
			return dst, err
		}
		return enc.write(dst, r)
	}
	return m
}

// namedObject builds a params object from positional values.
func (m *Method) namedObject(raw [][]byte) []byte {
	obj := []byte{'{'}
	for i, r := range raw {
		if r == nil {
			continue
		}
		if len(obj) > 1 {
			obj = append(obj, ',')
		}
		obj = jsontext.AppendQuote(obj, m.params[i].name)
		obj = append(obj, ':')
		obj = append(obj, r...)
	}
	return append(obj, '}')
}

// structParams lists the params a struct type declares.
func structParams(t reflect.Type) ([]paramSpec, error) {
	if t.Kind() != reflect.Struct {
		return nil, errors.New("rpccore: Struct needs a struct params type, not " + t.String())
	}
	var specs []paramSpec
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := f.Type.Kind() == reflect.Pointer || f.Type.Implements(nullableType) ||
			strings.Contains(","+opts+",", ",omitempty,")
		specs = append(specs, paramSpec{name: name, typ: f.Type, optional: optional})
	}
	return specs, nil
}
