package openrpc

// reflect.go derives JSON Schemas from Go types, following how rpccore and
// goccy/go-json encode and decode them: json tags, embedded structs,
// pointers and rpccore.Nullable as "or null", rpccore.RawJSON and types
// with their own JSON methods as "any value". Named struct types become
// components, referenced with $ref.

import (
	"encoding"
	"encoding/json"
	"path"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// componentsPath is where references to components point.
const componentsPath = "#/components/schemas/"

// reflector turns Go types into schemas and collects the components they
// reference. It is used by one document's generation, then dropped.
type reflector struct {
	names      map[reflect.Type]string // component name of each named struct type
	taken      map[string]bool
	components map[string]*schema
}

func newReflector() *reflector {
	return &reflector{names: map[reflect.Type]string{}, taken: map[string]bool{}, components: map[string]*schema{}}
}

var (
	rawJSONType     = reflect.TypeFor[rpccore.RawJSON]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	timeType        = reflect.TypeFor[time.Time]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextMarshaler]()
	rpccorePath     = reflect.TypeFor[rpccore.RawJSON]().PkgPath()
)

// schemaOf returns the schema of the JSON form of t.
func (r *reflector) schemaOf(t reflect.Type) *schema {
	switch {
	case t == nil, t == rawJSONType, t == rawMessageType:
		return &schema{}
	case isNullable(t):
		return orNull(r.schemaOf(t.Field(0).Type))
	case t == timeType:
		return &schema{Type: "string", Format: "date-time"}
	case t.Kind() == reflect.Pointer:
		return orNull(r.schemaOf(t.Elem()))
	case implements(t, marshalerType) || implements(t, unmarshalerType):
		return &schema{} // its own JSON form, which the type does not tell
	case implements(t, textType):
		return &schema{Type: "string"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64, reflect.Uintptr,
		reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return integerSchema(t)
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}
	case reflect.String:
		return &schema{Type: "string"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), marshalerType) && !implements(t.Elem(), textType) {
			return &schema{Type: "string", ContentEncoding: "base64"}
		}
		return &schema{Type: "array", Items: r.schemaOf(t.Elem())}
	case reflect.Array:
		n := t.Len()
		return &schema{Type: "array", Items: r.schemaOf(t.Elem()), MinItems: &n, MaxItems: &n}
	case reflect.Map:
		return r.mapSchema(t)
	case reflect.Struct:
		if t.Name() == "" {
			return r.structSchema(t)
		}
		return &schema{Ref: componentsPath + r.component(t)}
	}
	return &schema{} // interfaces, and what JSON cannot carry
}

// isNullable reports whether t is an instance of rpccore.Nullable.
func isNullable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == rpccorePath && strings.HasPrefix(t.Name(), "Nullable[")
}

// implements reports whether t or *t implements iface.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// integerSchema bounds the integers of t's size.
func integerSchema(t reflect.Type) *schema {
	s := &schema{Type: "integer"}
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.Minimum = "0"
		if bits < 64 {
			s.Maximum = json.Number(strconv.FormatUint(1<<bits-1, 10))
		}
	default:
		if bits < 64 {
			s.Minimum = json.Number(strconv.FormatInt(-1<<(bits-1), 10))
			s.Maximum = json.Number(strconv.FormatInt(1<<(bits-1)-1, 10))
		}
	}
	return s
}

// mapSchema describes a map: an object whose members have the elements'
// schema. Keys that JSON cannot hold make it an any.
func (r *reflector) mapSchema(t reflect.Type) *schema {
	switch k := t.Key(); {
	case k.Kind() == reflect.String, implements(k, textType):
	case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
	default:
		return &schema{}
	}
	s := &schema{Type: "object"}
	if t.Elem().Kind() != reflect.Interface {
		s.AdditionalProperties = r.schemaOf(t.Elem())
	}
	return s
}

// component returns the component name of the named struct type t,
// describing it on first use.
func (r *reflector) component(t reflect.Type) string {
	if name, ok := r.names[t]; ok {
		return name
	}
	name := r.freeName(t)
	r.names[t], r.taken[name] = name, true
	s := new(schema)
	r.components[name] = s // before the fields: a type may refer to itself
	*s = *r.structSchema(t)
	return name
}

// freeName picks an unused component name for t: its own name, then
// with its package's, then numbered.
func (r *reflector) freeName(t reflect.Type) string {
	base := cleanName(t.Name())
	if !r.taken[base] {
		return base
	}
	qualified := cleanName(path.Base(t.PkgPath())) + "." + base
	name := qualified
	for n := 2; r.taken[name]; n++ {
		name = qualified + strconv.Itoa(n)
	}
	return name
}

// cleanName keeps letters, digits, '.', '-' and '_' of a type's name
// (an instance of a generic type has brackets and commas), replacing runs
// of others by one '_'.
func cleanName(name string) string {
	var b strings.Builder
	gap := false
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(c)
			gap = false
		default:
			gap = true
		}
	}
	return b.String()
}

// structSchema describes a struct: an object with the encoded fields as
// properties, those without omitempty (or omitzero) required, since the
// encoder always writes them.
func (r *reflector) structSchema(t reflect.Type) *schema {
	s := &schema{Type: "object", Properties: properties{}}
	for _, f := range jsonFields(t) {
		fs := r.schemaOf(f.typ)
		if f.quoted {
			fs = &schema{Type: "string"}
			if f.typ.Kind() == reflect.Pointer {
				fs = orNull(fs)
			}
		}
		s.Properties = append(s.Properties, property{name: f.name, schema: fs})
		if !f.omitted {
			s.Required = append(s.Required, f.name)
		}
	}
	return s
}
