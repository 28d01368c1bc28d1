package rpccore

import (
	"bytes"
	"errors"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Error codes defined by the JSON-RPC 2.0 specification, and the ones this
// package uses from the range the specification reserves for servers.
const (
	CodeParseError     = -32700 // the document is not valid JSON
	CodeInvalidRequest = -32600 // the JSON is not a valid Request object
	CodeMethodNotFound = -32601 // no such method (or the method is not exposed)
	CodeInvalidParams  = -32602 // wrong count, type, range, or a missing param
	CodeInternalError  = -32603 // the method panicked or its result could not be encoded

	// CodeServerError is used for errors a method returns that are not an
	// *Error: the message is the error's text.
	CodeServerError = -32000
	// CodeResponseTooLarge answers calls whose answer would push the
	// response past the configured limit; calls after it are not run.
	CodeResponseTooLarge = -32003
)

// Error is a JSON-RPC error object. Methods return it (or an error wrapping
// it) to choose the code, message and data the client receives.
type Error struct {
	// Code is the JSON-RPC error code.
	Code int
	// Message is a short description of the error.
	Message string
	// Data is optional extra information, encoded as JSON. Nil omits it.
	Data any
}

// Error implements the error interface.
func (e *Error) Error() string {
	return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// ErrorCode returns the code, as go-ethereum's rpc.Error interface asks.
func (e *Error) ErrorCode() int { return e.Code }

// ErrorData returns the data, as go-ethereum's rpc.DataError interface
// asks.
func (e *Error) ErrorData() any { return e.Data }

// standardMessage is the specification's message for its own codes.
func standardMessage(code int) string {
	switch code {
	case CodeParseError:
		return "Parse error"
	case CodeInvalidRequest:
		return "Invalid Request"
	case CodeMethodNotFound:
		return "Method not found"
	case CodeInvalidParams:
		return "Invalid params"
	case CodeInternalError:
		return "Internal error"
	case CodeResponseTooLarge:
		return "Response too large"
	}
	return "Server error"
}

// ErrMethodHidden is what a call gate (WithCallGate) returns to hide a
// method from a caller: the call is answered -32601 "Method not found",
// byte for byte as for a method that is not registered.
var ErrMethodHidden = errors.New("rpccore: method hidden from this caller")

// CodeGoingAway answers the calls of a peer connection that the server
// did not finish because it is shutting down (a reload that removes the
// endpoint, a stop): those it read and did not run ("data": "not run"),
// which a client may send again elsewhere, and those still running at the
// end of the shutdown grace, which were cancelled and may have run in part.
const CodeGoingAway = -32001

// CodeLimitExceeded is the code of a call refused because the caller went
// over a limit (a rate limit, say), as EIP-1474 defines it.
const CodeLimitExceeded = -32005

// invalidParams returns a -32602 error whose data explains what was wrong.
func invalidParams(detail string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params", Data: detail}
}

// invalidRequest returns a -32600 error whose data explains what was wrong.
func invalidRequest(detail string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "Invalid Request", Data: detail}
}

// Precomputed error members for the answers that carry no data, so that the
// common failures append bytes instead of encoding.
var (
	errParse          = []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`)
	errBodyInvalid    = []byte(`"error":{"code":-32600,"message":"Invalid Request"}`)
	errBodyNotFound   = []byte(`"error":{"code":-32601,"message":"Method not found"}`)
	errBodyInternal   = []byte(`"error":{"code":-32603,"message":"Internal error"}`)
	errBodyTooLarge   = []byte(`"error":{"code":-32003,"message":"Response too large"}`)
	errBodyNotRun     = []byte(`"error":{"code":-32001,"message":"Server going away","data":"not run: the server is shutting down"}`)
	errBodyCancelled  = []byte(`"error":{"code":-32001,"message":"Server going away","data":"cancelled: the server shut down before the call finished; it may have run in part"}`)
	responsePrefix    = []byte(`{"jsonrpc":"2.0",`)
	nullID            = []byte(`null`)
	errBodyDataMarker = []byte(`,"data":`)
)

// resultPrefixText starts a success answer; idInfixText starts the id
// member that follows the result.
const (
	resultPrefixText = `{"jsonrpc":"2.0","result":`
	idInfixText      = `,"id":`
)

// asError turns what a method returned into a JSON-RPC error object.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeServerError, Message: err.Error()}
}

// appendErrorBody appends `"error":{...}` for e. Data that cannot be encoded
// is dropped rather than breaking the response.
func appendErrorBody(dst []byte, e *Error) []byte {
	dst = append(dst, `"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	msg := e.Message
	if msg == "" {
		msg = standardMessage(e.Code)
	}
	dst = jsontext.AppendQuote(dst, msg)
	if e.Data != nil {
		if data, err := encodeData(e.Data); err == nil {
			dst = append(dst, errBodyDataMarker...)
			dst = append(dst, data...)
		}
	}
	return append(dst, '}')
}

// encodeData encodes an error's data member.
func encodeData(v any) ([]byte, error) {
	switch d := v.(type) {
	case string:
		return jsontext.AppendQuote(nil, d), nil
	case RawJSON:
		if !Valid(d) {
			return nil, errInvalidRaw
		}
		return d, nil
	}
	return json.Marshal(v)
}

var errInvalidRaw = errors.New("rpccore: raw JSON is not valid")

// DecodeError turns the raw error member of an answer into an *Error. An
// error member that is not an object with an integer code and a string
// message gives CodeInternalError, "malformed error object", with the raw
// member as its data.
func DecodeError(raw []byte) *Error {
	var e struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
		Data    RawJSON `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == nil || e.Message == nil {
		return &Error{Code: CodeInternalError, Message: "malformed error object", Data: RawJSON(bytes.Clone(raw))}
	}
	rpcErr := &Error{Code: *e.Code, Message: *e.Message}
	if e.Data != nil {
		rpcErr.Data = e.Data
	}
	return rpcErr
}
