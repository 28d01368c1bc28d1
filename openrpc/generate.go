package openrpc

// generate.go assembles the document of a server's methods.

import (
	"fmt"
	"slices"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Info is what a document says of the API as a whole.
type Info struct {
	// Title names the API. Default: "caddy-jsonrpc".
	Title string
	// Version is the API's version (not OpenRPC's). Default: "0.0.0".
	Version string
	// Description says more about the API, in Markdown.
	Description string
}

// The defaults of Info.
const (
	DefaultTitle   = "caddy-jsonrpc"
	DefaultVersion = "0.0.0"
)

// Generate returns the OpenRPC document of the methods s serves (those its
// method filter hides left out, and those include rejects when include is
// not nil), in name order: their params with their names, whether each is
// required and the JSON Schema of its Go type, their results' schemas,
// what their services attached with rpccore.Method.Describe, and their
// subscriptions. Named struct types are described once, under
// components.schemas.
func Generate(s *rpccore.Server, info Info, include func(method string) bool) ([]byte, error) {
	return generate(s, info, include, false)
}

// generate is Generate, listing rpc.discover whether s serves it yet or
// not when discover is set.
func generate(s *rpccore.Server, info Info, include func(string) bool, discover bool) ([]byte, error) {
	names := s.Methods()
	if discover && !slices.Contains(names, DiscoverMethod) {
		names = append(names, DiscoverMethod)
	}
	names = slices.DeleteFunc(names, func(name string) bool { return include != nil && !include(name) })
	slices.Sort(names)

	g := &generator{reflector: newReflector(), namespaces: subscriptionsByMethod(s.SubscriptionSources())}
	doc := document{OpenRPC: Version, Info: info.object(), Methods: make([]method, 0, len(names))}
	for _, name := range names {
		m, err := g.method(name, s.Method(name))
		if err != nil {
			return nil, fmt.Errorf("openrpc: method %q: %w", name, err)
		}
		doc.Methods = append(doc.Methods, m)
	}
	if len(g.components) > 0 {
		doc.Components = &components{Schemas: g.components}
	}
	if g.subscriptions {
		doc.Extensions = []extension{subscriptionExtension}
	}
	return marshal(doc)
}

// object is the info object, with the defaults filled in.
func (i Info) object() infoObject {
	o := infoObject{Title: i.Title, Version: i.Version, Description: i.Description}
	if o.Title == "" {
		o.Title = DefaultTitle
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	return o
}

// generator describes the methods of one document.
type generator struct {
	*reflector
	namespaces    map[string]*namespace // by the names of their subscribe and unsubscribe methods
	subscriptions bool                  // a method carries x-subscription
}

// method describes the method m, registered as name.
func (g *generator) method(name string, m *rpccore.Method) (method, error) {
	if name == DiscoverMethod {
		return discoverMethod(), nil
	}
	if ns := g.namespaces[name]; ns != nil {
		g.subscriptions = true
		if name == ns.subscribe {
			return g.subscribeMethod(ns, m.Doc())
		}
		return g.unsubscribeMethod(ns, m)
	}
	return g.typedMethod(name, m)
}

// typedMethod describes a method by its params and result.
func (g *generator) typedMethod(name string, m *rpccore.Method) (method, error) {
	doc := m.Doc()
	out := method{Name: name, Summary: doc.Summary, Description: doc.Description, Params: []contentDescriptor{}}
	if m.IsRaw() {
		out.Result = &contentDescriptor{Name: "result", Description: doc.Result, Schema: &schema{}}
		return out, nil
	}
	out.ParamStructure = either
	if m.IsVariadic() {
		out.ParamStructure = byName // by position, the elements themselves are the params
	}
	params, err := g.params(m.Params(), doc.Params)
	if err != nil {
		return out, err
	}
	out.Params = params
	result := nullSchema()
	if t := m.Result(); t != nil {
		result = g.schemaOf(t)
	}
	out.Result = &contentDescriptor{Name: "result", Description: doc.Result, Schema: result}
	return out, nil
}

// params describes params, with their descriptions by name.
func (g *generator) params(params []rpccore.Param, descriptions map[string]string) ([]contentDescriptor, error) {
	out := make([]contentDescriptor, 0, len(params))
	for _, p := range params {
		s := g.schemaOf(p.Type)
		if p.Default != nil {
			def, err := marshal(p.Default)
			if err != nil {
				return nil, fmt.Errorf("param %q: encoding its default: %w", p.Name, err)
			}
			withDefault := *s // a copy: s may be shared
			withDefault.Default = def
			s = &withDefault
		}
		out = append(out, contentDescriptor{Name: p.Name, Description: descriptions[p.Name], Required: p.Required, Schema: s})
	}
	return out, nil
}
