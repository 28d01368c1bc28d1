package rpccore

// describe.go lets a Method tell what it takes and returns, for discovery
// documents such as OpenRPC's (package openrpc): the params and result
// recorded at registration, and the words a service attaches with Describe.
// Calls never read any of it.

import (
	"errors"
	"maps"
	"reflect"
	"strconv"
)

// Doc is what a service says about a method, for discovery documents
// (rpc.discover). Every field is optional.
type Doc struct {
	// Summary says in one line what the method does.
	Summary string
	// Description says more: how the method behaves, its errors.
	// Discovery documents carry it as Markdown.
	Description string
	// Params describes params by name; every name must be a param of the
	// method.
	Params map[string]string
	// Result describes what the method answers.
	Result string
}

// Describe attaches d to the method, replacing what an earlier Describe
// attached. A param name in d.Params that the method does not have makes
// its registration fail.
func (m *Method) Describe(d Doc) *Method {
	for name := range d.Params {
		if !m.hasParam(name) {
			m.err = errors.New("rpccore: Describe: unknown param " + strconv.Quote(name))
			return m
		}
	}
	d.Params = maps.Clone(d.Params)
	m.doc = d
	return m
}

// hasParam reports whether the method has a param called name.
func (m *Method) hasParam(name string) bool {
	for _, p := range m.params {
		if p.name == name {
			return true
		}
	}
	return false
}

// Doc returns what Describe attached to the method (a copy).
func (m *Method) Doc() Doc {
	d := m.doc
	d.Params = maps.Clone(d.Params)
	return d
}

// Param describes one param of a Method, as it was registered.
type Param struct {
	// Name is the param's name: its key in named params.
	Name string
	// Type is the Go type the param's value decodes into.
	Type reflect.Type
	// Required reports whether every call must give the param. Pointer
	// and Nullable params, params given a Default, the param of a
	// Variadic method and Struct fields that are pointers, Nullable or
	// tagged omitempty are optional.
	Required bool
	// Default is what the method receives when a call leaves the param
	// out, as given to Default; nil means the zero value of Type.
	Default any
}

// Params returns the method's params in positional order (a copy). Raw
// methods read their params themselves and have none here.
func (m *Method) Params() []Param {
	if len(m.params) == 0 {
		return nil
	}
	out := make([]Param, len(m.params))
	for i, p := range m.params {
		out[i] = Param{Name: p.name, Type: p.typ, Required: !p.optional, Default: p.def}
	}
	return out
}

// Result returns the Go type of the method's result: R of Func0 to Func4,
// Variadic and Struct. It is nil for Proc0 to Proc3, which answer null,
// and for Raw methods, whose result is theirs to write.
func (m *Method) Result() reflect.Type {
	if m.result == noneType {
		return nil
	}
	return m.result
}

// noneType is the result type of procedures.
var noneType = reflect.TypeFor[none]()

// IsRaw reports whether the method was made with Raw: it reads its own
// params and writes its own result, so Params and Result say nothing of
// them.
func (m *Method) IsRaw() bool { return m.raw }

// IsVariadic reports whether the method was made with Variadic: its one
// param, a slice, is given as the elements themselves by position
// ([1, 2, 4]) or as an array by name ({"numbers": [1, 2, 4]}).
func (m *Method) IsVariadic() bool { return m.variadic }
