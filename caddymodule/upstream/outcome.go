package upstream

// outcome.go sorts what an upstream request gave into outcomes, and holds
// the errors the service answers when no server answered.

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Error codes the service answers when no server answered a call; their
// data is `{"upstream": <name>, "error": <what happened>}`. The service
// also answers rpccore.CodeResponseTooLarge (-32003) for an answer over
// max_response.
const (
	// CodeUnavailable: no server took the call (each was down, refused
	// the connection or answered HTTP 503), so it ran nowhere and may be
	// sent again.
	CodeUnavailable = -32002
	// CodeOutcomeUnknown: the call was sent and no answer came (the
	// connection was lost, the timeout passed, or HTTP 502 or 504): it
	// may or may not have run.
	CodeOutcomeUnknown = -32020
	// CodeBadAnswer: the server's answer is not a JSON-RPC answer (an HTTP
	// error status without one, or broken JSON-RPC).
	CodeBadAnswer = -32021
)

// outcome is what became of a call at one server.
type outcome uint8

const (
	outcomeOK       outcome = iota // the server answered a result
	outcomeError                   // the server answered an error
	outcomeNotSent                 // nothing reached the server: the next may take it
	outcomeUnknown                 // sent, and no answer came
	outcomeTooLarge                // the answer was over max_response
	outcomeBad                     // the answer was not JSON-RPC
)

// outcomeNames are the values of the metrics' outcome label.
var outcomeNames = [...]string{"ok", "error", "unavailable", "outcome_unknown", "response_too_large", "bad_answer"}

// verdict is an outcome and whether it marks the server down.
type verdict struct {
	outcome outcome
	down    bool
}

// classify sorts err, what a call to a server gave, under the request's
// context parent and the attempt's context attempt (parent with the
// timeout). A timeout or the client going away does not mark the server
// down.
func classify(err error, parent, attempt context.Context) verdict {
	var rpcErr *rpccore.Error
	var httpErr *rpcclient.HTTPError
	switch {
	case err == nil:
		return verdict{outcome: outcomeOK}
	case errors.As(err, &rpcErr):
		return verdict{outcome: outcomeError}
	case errors.Is(err, rpcclient.ErrAnswerTooLarge):
		return verdict{outcome: outcomeTooLarge}
	case errors.Is(err, rpcclient.ErrDisconnected):
		// A WebSocket client redialling its lost connection refuses calls
		// at once until it is back: the server is skipped meanwhile,
		// without a mark.
		return verdict{outcome: outcomeNotSent}
	case errors.Is(err, rpcclient.ErrClientClosed):
		// The service stopped (a reload) with the call under way.
		return verdict{outcome: outcomeUnknown}
	case notSent(err):
		return verdict{outcome: outcomeNotSent, down: true}
	case errors.As(err, &httpErr):
		switch httpErr.StatusCode {
		case http.StatusServiceUnavailable:
			return verdict{outcome: outcomeNotSent, down: true}
		case http.StatusBadGateway, http.StatusGatewayTimeout:
			return verdict{outcome: outcomeUnknown, down: true}
		}
		return verdict{outcome: outcomeBad}
	case errors.Is(err, rpcclient.ErrBadAnswer):
		return verdict{outcome: outcomeBad}
	case parent.Err() != nil || attempt.Err() != nil:
		return verdict{outcome: outcomeUnknown}
	}
	return verdict{outcome: outcomeUnknown, down: true} // a connection lost after the call was written
}

// notSent reports whether err shows that the call never left: the
// connection could not be made.
func notSent(err error) bool {
	var dial *dialError
	var op *net.OpError
	var cert *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	return errors.As(err, &dial) ||
		(errors.As(err, &op) && op.Op == "dial") ||
		errors.As(err, &cert) ||
		errors.As(err, &record)
}

// errorData is the data of the errors the service answers.
type errorData struct {
	Upstream string `json:"upstream"`
	Error    string `json:"error"`
}

// failure is the error answered for a call with code because of cause.
func (u *Upstream) failure(code int, cause error) *rpccore.Error {
	msg := "Upstream unavailable"
	switch code {
	case CodeOutcomeUnknown:
		msg = "Upstream outcome unknown"
	case CodeBadAnswer:
		msg = "Bad upstream answer"
	case rpccore.CodeResponseTooLarge:
		msg = "Response too large"
	}
	return &rpccore.Error{Code: code, Message: msg, Data: errorData{Upstream: u.Name, Error: cause.Error()}}
}

// errAllDown is the cause of -32002 when every server is marked down.
var errAllDown = errors.New("every server is marked down")
