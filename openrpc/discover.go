package openrpc

// discover.go serves the document as rpc.discover, the OpenRPC discovery
// method: generated when it is registered, answered as the same bytes by
// every call.

import (
	"context"
	"sync"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// DiscoverMethod is the name of the discovery method, as the OpenRPC
// specification names it.
const DiscoverMethod = "rpc.discover"

// metaSchema is the schema of OpenRPC documents, the result of
// rpc.discover, where the specification's example points.
const metaSchema = "https://raw.githubusercontent.com/open-rpc/meta-schema/master/schema.json"

// discoverMethod is rpc.discover's entry in the document.
func discoverMethod() method {
	return method{
		Name:        DiscoverMethod,
		Description: "Returns an OpenRPC schema as a description of this service.",
		Params:      []contentDescriptor{},
		Result:      &contentDescriptor{Name: "OpenRPC Schema", Schema: &schema{Ref: metaSchema}},
	}
}

// Register adds rpc.discover to s, answering the document of the methods s
// serves (as Generate writes it, listing rpc.discover too). The document
// is generated once, here, so Register comes after every other method is
// registered; each call answers the same bytes. It fails when s already
// has rpc.discover, or when a method cannot be described (a default that
// does not encode).
func Register(s *rpccore.Server, info Info) error {
	docs := NewDocuments(s, info)
	doc, err := docs.Get(nil, nil)
	if err != nil {
		return err
	}
	answer := rpccore.RawJSON(doc)
	// Every caller sees the same methods, so one document serves them all.
	return s.RegisterExtension(DiscoverMethod, rpccore.Func0(func(context.Context) (rpccore.RawJSON, error) {
		return answer, nil
	}))
}

// Documents keeps the documents of one server, one per set of visible
// methods, each generated the first time it is asked for: a server whose
// callers see methods of their own answers each the document of its
// methods, generated once per set, not per call.
type Documents struct {
	server *rpccore.Server
	info   Info

	mu    sync.Mutex
	byKey map[any][]byte
}

// NewDocuments returns the documents of s, none generated yet. Ask for
// them once every method is registered.
func NewDocuments(s *rpccore.Server, info Info) *Documents {
	return &Documents{server: s, info: info}
}

// Get returns the document of the methods include accepts (every method
// when it is nil), which key names: callers that see the same methods
// pass the same key (comparable, such as a pointer to their rules) and
// share one document.
func (d *Documents) Get(key any, include func(string) bool) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.byKey[key]; ok {
		return doc, nil
	}
	doc, err := generate(d.server, d.info, include, true)
	if err != nil {
		return nil, err
	}
	if d.byKey == nil {
		d.byKey = map[any][]byte{}
	}
	d.byKey[key] = doc
	return doc, nil
}
