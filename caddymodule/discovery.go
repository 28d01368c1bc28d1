package caddymodule

// discovery.go configures rpc.discover, the OpenRPC discovery method of an
// endpoint.

// OpenRPCConfig configures OpenRPC discovery: the method `rpc.discover`
// (no params) answers an OpenRPC 1.3 document of the methods the endpoint
// exposes, with their params, the JSON Schemas of their params and results,
// and the descriptions their services attach. The document is generated
// once, when the configuration loads; methods that `methods` hides are left
// out. `methods` does not apply to rpc.discover itself.
type OpenRPCConfig struct {
	// Turns discovery off: rpc.discover answers -32601 Method not found.
	Disabled bool `json:"disabled,omitempty"`

	// The title of the API, in the document's info. Default: caddy-jsonrpc.
	Title string `json:"title,omitempty"`

	// The version of the API (not of OpenRPC), in the document's info.
	// Default: 0.0.0.
	Version string `json:"version,omitempty"`

	// A description of the API, in the document's info (Markdown).
	Description string `json:"description,omitempty"`
}
