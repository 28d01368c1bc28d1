// Package methodmatcher is the http.matchers.jsonrpc_method request
// matcher: it routes JSON-RPC requests by the methods they call.
package methodmatcher

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path"
	"reflect"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types/ref"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/body"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(MatchMethod{})
}

// MatchMethod matches JSON-RPC requests by the method they call, so that
// Caddy's own handlers can route by method (`reverse_proxy @reads ...`).
// It matches a POST whose body is a JSON-RPC request calling a method
// that matches one of its patterns; a batch matches when every call in it
// does. It fails closed: a body that is not valid JSON (by the rules the
// jsonrpc handler applies: duplicate member names, invalid UTF-8, lone
// surrogates), an empty batch, an item that is not a request, a body over
// max_body or a Content-Type that is not JSON never matches.
//
// The body is read once: handlers after the matcher read it unchanged, and
// a jsonrpc handler on the same request answers the document the matcher
// scanned, without reading or scanning it again.
type MatchMethod struct {
	// Method name patterns, in Go's path.Match syntax: `*` matches any run
	// of characters but `/`, `?` one character, `[a-z]` a class.
	Methods []string `json:"methods,omitempty"`

	// The largest body the matcher reads, in bytes; a larger one does not
	// match (and reaches the handlers after it whole). Keep it at the
	// jsonrpc handler's max_request_body. Default: 5 MiB.
	MaxBody int64 `json:"max_body,omitempty"`

	globs []methodGlob
}

// CaddyModule returns the Caddy module information.
func (MatchMethod) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.matchers.jsonrpc_method",
		New: func() caddy.Module { return new(MatchMethod) },
	}
}

// Provision checks the patterns and compiles them.
func (m *MatchMethod) Provision(caddy.Context) error {
	if len(m.Methods) == 0 {
		return errors.New("jsonrpc_method: want at least one method pattern")
	}
	if m.MaxBody < 0 {
		return errors.New("jsonrpc_method: max_body must not be negative")
	}
	if m.MaxBody == 0 {
		m.MaxBody = rpccore.DefaultMaxRequestBytes
	}
	m.globs = make([]methodGlob, len(m.Methods))
	for i, p := range m.Methods {
		g, err := compileGlob(p)
		if err != nil {
			return fmt.Errorf("jsonrpc_method: bad pattern %q: %w", p, err)
		}
		m.globs[i] = g
	}
	return nil
}

// Match reports whether r calls only methods that match.
func (m *MatchMethod) Match(r *http.Request) bool {
	ok, _ := m.MatchWithError(r)
	return ok
}

// MatchWithError reports whether r calls only methods that match. A body
// that cannot be read is an error.
func (m *MatchMethod) MatchWithError(r *http.Request) (bool, error) {
	doc, err := body.ScannedBody(r, m.MaxBody)
	if doc == nil || err != nil {
		return false, err
	}
	return doc.EveryMethod(m.matches), nil
}

// matches reports whether method matches one of the patterns.
func (m *MatchMethod) matches(method []byte) bool {
	for i := range m.globs {
		if m.globs[i].match(method) {
			return true
		}
	}
	return false
}

// methodGlob is a compiled method pattern: a literal, a prefix (`eth_*`),
// or anything else for path.Match.
type methodGlob struct {
	pattern string
	kind    globKind
	literal []byte // the whole literal, or the prefix before '*'
}

type globKind uint8

const (
	globLiteral globKind = iota
	globPrefix
	globPath
)

// compileGlob checks pattern and picks the quickest way to match it.
func compileGlob(pattern string) (methodGlob, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return methodGlob{}, err
	}
	g := methodGlob{pattern: pattern, kind: globPath}
	special := bytes.IndexAny([]byte(pattern), `*?[\`)
	switch {
	case special < 0:
		g.kind, g.literal = globLiteral, []byte(pattern)
	case special == len(pattern)-1 && pattern[special] == '*':
		g.kind, g.literal = globPrefix, []byte(pattern[:special])
	}
	return g, nil
}

// match reports whether method matches the pattern.
func (g *methodGlob) match(method []byte) bool {
	switch g.kind {
	case globLiteral:
		return len(method) == len(g.literal) && (len(method) == 0 || method[0] == g.literal[0]) &&
			string(method) == string(g.literal)
	case globPrefix:
		if len(method) < len(g.literal) || len(g.literal) > 0 && method[0] != g.literal[0] ||
			string(method[:len(g.literal)]) != string(g.literal) {
			return false
		}
		return !hasSlash(method[len(g.literal):]) // `*` does not match '/', as in path.Match
	}
	ok, _ := path.Match(g.pattern, string(method))
	return ok
}

// hasSlash reports whether b holds a '/'. Method names are short: a loop
// costs less than a call to bytes.IndexByte.
func hasSlash(b []byte) bool {
	for _, c := range b {
		if c == '/' {
			return true
		}
	}
	return false
}

// CELLibrary makes the matcher usable in CEL expressions:
//
//	expression jsonrpc_method('eth_get*', 'net_*')
func (MatchMethod) CELLibrary(ctx caddy.Context) (cel.Library, error) {
	return caddyhttp.CELMatcherImpl(
		"jsonrpc_method",
		"jsonrpc_method_request_list",
		[]*cel.Type{cel.ListType(cel.StringType)},
		func(data ref.Val) (caddyhttp.RequestMatcherWithError, error) {
			list, err := data.ConvertToNative(stringSliceType)
			if err != nil {
				return nil, err
			}
			m := &MatchMethod{Methods: list.([]string)}
			if err := m.Provision(ctx); err != nil {
				return nil, err
			}
			return m, nil
		},
	)
}

var stringSliceType = reflect.TypeFor[[]string]()

// Interface guards
var (
	_ caddy.Provisioner                 = (*MatchMethod)(nil)
	_ caddyhttp.RequestMatcherWithError = (*MatchMethod)(nil)
	_ caddyhttp.CELLibraryProducer      = (*MatchMethod)(nil)
)
