package rpcclient

// rawparams.go sends params that are already encoded, as a proxy forwards
// the params it received.

import (
	"errors"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// RawParams is a call's params already encoded as JSON: an array or an
// object. As the only argument of a call (Call, Notify, a BatchElem's
// Args), it is sent as the params member as it is, byte for byte, after a
// validity check; `[]` and `{}` are sent too, where no arguments at all
// send no params member.
type RawParams []byte

// errRawParams is the error of RawParams that are not an array or an
// object.
var errRawParams = errors.New("rpcclient: RawParams must be one JSON array or object")

// appendRawParams appends p after checking it.
func appendRawParams(dst []byte, p RawParams) ([]byte, error) {
	i := jsontext.SkipSpace(p, 0)
	if i == len(p) || (p[i] != '[' && p[i] != '{') || !jsontext.Valid(p) {
		return dst, errRawParams
	}
	return append(dst, p...), nil
}
