package rpcclient

import (
	"errors"
	"fmt"
	"strconv"
)

// Errors the client's calls return besides the server's *rpccore.Error.
var (
	// ErrClientClosed is returned by calls on a closed client, and to
	// calls under way when it closes.
	ErrClientClosed = errors.New("rpcclient: client is closed")
	// ErrDisconnected is returned, under WithFailFast, by calls made while
	// the connection is down.
	ErrDisconnected = errors.New("rpcclient: not connected")
	// ErrOutcomeUnknown is matched (errors.Is) by the error of a call that
	// was written to a connection that was lost before its answer came:
	// the server may have run it or not.
	ErrOutcomeUnknown = errors.New("rpcclient: outcome unknown")
	// ErrNotificationsUnsupported is returned by Subscribe over HTTP.
	ErrNotificationsUnsupported = errors.New("rpcclient: notifications are not supported over HTTP")
	// ErrSubscriptionQueueOverflow ends a subscription whose channel was
	// not read while DefaultSubscriptionBuffer notifications piled up.
	ErrSubscriptionQueueOverflow = errors.New("rpcclient: subscription queue overflow")
	// ErrAnswerTooLarge is an answer over the client's size limit.
	ErrAnswerTooLarge = errors.New("rpcclient: answer over the size limit")
	// ErrBadAnswer is matched by the errors of answers the client cannot
	// read: not JSON-RPC, or a result that does not decode.
	ErrBadAnswer = errors.New("rpcclient: bad answer")
)

// OutcomeUnknownError is the error of a call written to a connection that
// was lost before the call's answer came.
type OutcomeUnknownError struct {
	// Method is the method called.
	Method string
	// Cause is why the connection was lost.
	Cause error
}

// Error implements error.
func (e *OutcomeUnknownError) Error() string {
	return fmt.Sprintf("rpcclient: %s: outcome unknown: the connection was lost after the call was sent: %v", e.Method, e.Cause)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true.
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap returns the cause.
func (e *OutcomeUnknownError) Unwrap() error { return e.Cause }

// ProtocolError is input from the server that breaks JSON-RPC 2.0, for
// which the client dropped the connection.
type ProtocolError struct {
	// Reason says what was wrong.
	Reason string
}

// Error implements error.
func (e *ProtocolError) Error() string { return "rpcclient: bad input from the server: " + e.Reason }

// Is makes errors.Is(err, ErrBadAnswer) true.
func (e *ProtocolError) Is(target error) bool { return target == ErrBadAnswer }

// HTTPError is an HTTP answer other than 200 whose body is not a JSON-RPC
// answer.
type HTTPError struct {
	// StatusCode is the HTTP status, for example 429.
	StatusCode int
	// Status is the status line's text, for example "429 Too Many Requests".
	Status string
	// Body is the start of the answer's body.
	Body []byte
}

// Error implements error.
func (e *HTTPError) Error() string {
	if len(e.Body) == 0 {
		return "rpcclient: HTTP " + e.Status
	}
	return "rpcclient: HTTP " + e.Status + ": " + strconv.Quote(string(e.Body))
}
