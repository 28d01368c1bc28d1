package natshub

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Error codes of JetStream about a stream's replicas.
const (
	jsReplicasNotSupported = 10074 // replicas > 1 on a server outside a cluster
	jsInsufficientRes      = 10023 // not enough servers or storage
	jsClusterNoPeers       = 10005 // no servers to place the replicas on
)

// StreamRefusedError is NATS refusing to make the hub's stream, or to
// bring an existing one to the configuration: no publish with history
// reaches NATS until the configuration, or the stream, changes.
type StreamRefusedError struct {
	Stream string
	Err    *jetstream.APIError
	Hint   string
}

// Error implements error.
func (e *StreamRefusedError) Error() string {
	return fmt.Sprintf("NATS refused the hub's stream %s as configured (%s): %s", e.Stream, e.Err.Error(), e.Hint)
}

// Unwrap returns NATS's error.
func (e *StreamRefusedError) Unwrap() error { return e.Err }

// streamRefused turns an error of making or updating the stream into a
// *StreamRefusedError when NATS answered it, saying what to change; other
// errors (timeouts, a lost connection) are returned as they are.
func (h *Hub) streamRefused(err error) error {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	replicas := max(h.opts.History.Replicas, 1)
	hint := "the stream exists with a configuration NATS cannot change to this one; " +
		"give the hub its old configuration back, or delete the stream (nats stream rm " + h.stream + ") and let the hub make it again"
	switch apiErr.ErrorCode {
	case jsReplicasNotSupported:
		hint = fmt.Sprintf("history replicas %d needs a JetStream cluster of at least %d servers, and this NATS server "+
			"runs alone; set replicas 1, or run a cluster", replicas, replicas)
	case jsInsufficientRes, jsClusterNoPeers:
		hint = fmt.Sprintf("history replicas %d needs %d JetStream servers with room in the cluster; set replicas to "+
			"at most the cluster's servers, or add servers", replicas, replicas)
	case jetstream.JSErrCodeJetStreamNotEnabled, jetstream.JSErrCodeJetStreamNotEnabledForAccount:
		hint = "history needs JetStream: start nats-server with -js (or jetstream {} in its configuration), " +
			"or leave history out"
	}
	return &StreamRefusedError{Stream: h.stream, Err: apiErr, Hint: hint}
}
