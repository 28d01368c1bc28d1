package rpcclient

// result.go decodes a result into the caller's value: numbers, strings,
// booleans and raw JSON by hand, anything else through goccy/go-json
// without letting the value escape.

import (
	"encoding/json"
	"fmt"

	gojson "github.com/goccy/go-json"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// decodeResult decodes raw, a result the scanner accepted, into result (a
// pointer, or nil to drop it). A null result leaves the value as it was,
// as encoding/json does.
func decodeResult(raw []byte, result any) error {
	if result == nil || string(raw) == "null" {
		return nil
	}
	if handled, err := decodeCommon(raw, result); handled {
		return err
	}
	return wrapDecode(gojson.Unmarshal(raw, result))
}

// decodeTyped is decodeResult for a value of a known type, which stays
// where the caller has it.
func decodeTyped[T any](raw []byte, result *T) error {
	if string(raw) == "null" {
		return nil
	}
	if handled, err := decodeCommon(raw, result); handled {
		return err
	}
	return wrapDecode(gojson.UnmarshalOf(raw, result))
}

// decodeCommon decodes results of the common types (numbers, strings,
// booleans, raw JSON) by hand, and reports false for any other type. It
// keeps no reference to result.
func decodeCommon(raw []byte, result any) (handled bool, err error) {
	var ok bool
	switch r := result.(type) {
	case *float64:
		if ok = isNumber(raw); ok {
			var perr error
			*r, perr = jsontext.ParseFloat64(raw)
			ok = perr == nil
		}
	case *int:
		var n int64
		n, ok = jsontext.ParseInt(raw)
		*r = int(n)
	case *int64:
		*r, ok = jsontext.ParseInt(raw)
	case *uint64:
		*r, ok = jsontext.ParseUint(raw)
	case *bool:
		ok = string(raw) == "true" || string(raw) == "false"
		*r = string(raw) == "true"
	case *string:
		if ok = raw[0] == '"'; ok {
			*r = unquote(raw)
		}
	case *rpccore.RawJSON:
		*r, ok = append((*r)[:0], raw...), true
	case *json.RawMessage:
		*r, ok = append((*r)[:0], raw...), true
	default:
		return false, nil
	}
	if !ok {
		return true, cannotDecode(raw, typeName(result))
	}
	return true, nil
}

// typeName names the type of a result pointer for an error.
func typeName(result any) string {
	switch result.(type) {
	case *float64:
		return "float64"
	case *int:
		return "int"
	case *int64:
		return "int64"
	case *uint64:
		return "uint64"
	case *bool:
		return "bool"
	case *string:
		return "string"
	}
	return "a value"
}

// cannotDecode is the error of a result that does not fit its value.
func cannotDecode(raw []byte, into string) error {
	return fmt.Errorf("%w: cannot decode result %.40s into %s", ErrBadAnswer, raw, into)
}

// isNumber reports whether raw, a valid JSON value, is a number.
func isNumber(raw []byte) bool { return raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') }

// unquote returns the string a JSON string holds.
func unquote(raw []byte) string {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' {
			return string(jsontext.AppendUnquote(nil, body))
		}
	}
	return string(body)
}

// wrapDecode marks a decoding error as a bad answer.
func wrapDecode(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrBadAnswer, err)
}

// settle turns what waiting for a call gave into the call's error, the
// result decoded into result when there is none.
func settle(res, errObj []byte, err error, result any) error {
	if err == nil {
		if err = answerError(res, errObj); err == nil {
			err = decodeResult(res, result)
		}
	}
	return err
}

// answerError returns the error of an answer: its error member as an
// *rpccore.Error, or a bad answer when it has neither member.
func answerError(result, errObj []byte) error {
	switch {
	case errObj != nil:
		return rpccore.DecodeError(errObj)
	case result == nil:
		return &ProtocolError{Reason: "an answer with neither result nor error"}
	}
	return nil
}
