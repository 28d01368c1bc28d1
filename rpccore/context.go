package rpccore

// context.go carries what a transport knows about a request to the methods.

import "context"

// RequestInfo describes where a call came from. Transports attach it to the
// context they pass to Process; methods read it with RequestInfoFrom.
type RequestInfo struct {
	// Transport names the transport: "http", "websocket", "inprocess", ...
	Transport string
	// RemoteAddr is the client's address, when the transport has one.
	RemoteAddr string
	// Header holds the request's HTTP headers (canonical keys), nil when the
	// transport has none.
	Header map[string][]string
}

type requestInfoKey struct{}

// WithRequestInfo returns a context carrying info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, info)
}

// RequestInfoFrom returns the RequestInfo ctx carries, or nil.
func RequestInfoFrom(ctx context.Context) *RequestInfo {
	info, _ := ctx.Value(requestInfoKey{}).(*RequestInfo)
	return info
}
