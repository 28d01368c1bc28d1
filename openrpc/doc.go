// Package openrpc describes the methods of an rpccore.Server as an OpenRPC
// 1.3 document (https://spec.open-rpc.org) and serves it as rpc.discover,
// the discovery method of the specification.
//
// The document lists every method the server serves, in name order: its
// params (names, whether each is required, the JSON Schema of each Go
// type, defaults), its result's schema, and what the service attached with
// rpccore.Method.Describe. Methods accept params by position and by name
// ("paramStructure": "either"); Variadic methods are described by name,
// Raw methods without params, their params and result being their own.
// Subscriptions are described on <ns>_subscribe and <ns>_unsubscribe,
// with the extension x-subscription, which the document declares.
//
// Schemas follow the JSON forms rpccore and goccy/go-json give Go types:
// json tags and embedded structs as encoding/json reads them, fields
// without omitempty required, pointers and rpccore.Nullable as "or null",
// []byte as base64, time.Time as a date-time string, rpccore.RawJSON and
// types with their own MarshalJSON or UnmarshalJSON as any value, other
// TextMarshalers as strings. Named struct types are described once under
// components.schemas and referenced with $ref.
package openrpc
