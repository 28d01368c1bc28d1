// Package rpccore is a JSON-RPC 2.0 processor: bytes in, bytes out, with
// typed Go methods and no reflection per call. It imports neither Caddy nor
// net/http; transports (the Caddy handler, WebSocket, a browser host) hand it
// documents and write back what it returns.
//
// # Processing
//
// [Server.Process] takes a request document and appends the response
// document to a caller's buffer. One scan validates the whole document
// (it accepts exactly what encoding/json/jsontext accepts with its default
// options) and records, as slices of the input, the jsonrpc, method, params and id
// members of each request; nothing is copied or unescaped unless it holds a
// backslash escape. The id is echoed byte for byte, so a 30-digit integer
// id comes back unchanged.
//
// # What the specification says, and what this package does
//
//   - A document that is not valid JSON, or has anything but whitespace after
//     it, is answered with one -32700 error (id null) and no call runs, even
//     when only the last item of a batch is broken. Beyond RFC 8259's
//     grammar, three things make a document invalid, as RFC 8259 §8.1 and
//     RFC 7493 recommend and encoding/json/jsontext does by default: a string
//     (member names included) that is not valid UTF-8, an escaped lone
//     surrogate ("\ud800"), and an object, in the envelope or anywhere in
//     params, with the same member name twice (compared after unescaping).
//     So a proxy and a server never read two different methods or params
//     out of one document, and an id is echoed only when it is valid text.
//   - A Request object needs "jsonrpc": "2.0" and a string "method"; params,
//     when present, must be an array or an object (null is refused); the id,
//     when present, must be a string, a number or null. Anything else is
//     -32600, echoing the id when it is usable and null otherwise. Members
//     the specification does not define are ignored.
//   - A request without an id is a notification: it runs and gets no answer,
//     not even an error. A request with "id": null is a call.
//   - Methods whose names start with "rpc." cannot be registered, so calls to
//     them get -32601.
//   - An empty batch is one -32600; a batch whose items are all invalid gets
//     one -32600 per item; a batch of notifications gets nothing. Answers
//     come in request order.
//   - Params are matched to the names given at registration, by position
//     ([42, 23]) or by name ({"subtrahend": 23, "minuend": 42}). Too many
//     positional params, an unknown name, a missing required param, a value
//     of the wrong JSON type or one out of range for the Go type (300 for an
//     int8, 1.5 for an int) are -32602, with data naming the param.
//   - A method that returns an *Error answers with its code, message and
//     data; any other error answers -32000 with the error's text. A method
//     that panics answers -32603; a PanicObserver hears of it and the server
//     goes on.
//
// # Limits
//
// Request bytes, batch items, response bytes (error objects counted) and
// nesting depth are limited (defaults 5 MiB, 1,000, 25 MiB, 128). A request
// over its limit is answered -32600 before any call runs; a response that
// would grow past its limit answers -32003 for the call that crossed it and
// for every later call of the batch, which do not run.
//
// # Methods
//
// [Func0] to [Func4] wrap ordinary functions such as
//
//	func(ctx context.Context, minuend, subtrahend float64) (float64, error)
//
// choosing each param's decoder and the result's encoder once. Numbers,
// booleans, strings, slices of them, pointers to them and [Nullable] values
// are handled by this package's own append-style code; other types go
// through github.com/goccy/go-json. [Proc0] to [Proc3] wrap functions
// without result, [Variadic] takes any number of params of one type,
// [Struct] maps params onto a struct's fields, and [Raw] hands the params
// bytes to the method, which writes its own result.
//
// # Forwarding
//
// [Server.RegisterForwarder] hands a [Forwarder] the calls of methods known
// by pattern rather than by name (the methods of another server, say):
// those a pattern matches and no registered method serves. The calls of a
// batch bound for one Forwarder reach it together, so that it can send
// them on as one batch; the server keeps the clients' ids and puts each
// answer in its request's place.
//
// # Context
//
// Every call receives the context given to Process: transports attach a
// [RequestInfo] and cancel it when the client goes away.
package rpccore
