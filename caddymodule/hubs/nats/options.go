package natshub

import (
	"errors"
	"time"

	"github.com/nats-io/nats.go"
)

// Options configure a Hub. Every field but ReconnectWait and Connect must
// be set: the Caddy module fills them from its configuration and its
// defaults.
type Options struct {
	// URLs are the NATS servers to connect to.
	URLs []string
	// SubjectPrefix begins every subject the hub uses, and names its
	// stream: letters, digits, '-' and '_' in tokens separated by dots.
	SubjectPrefix string
	// Name is the connection's name, as NATS monitoring shows it.
	Name string
	// History keeps messages for resuming; nil keeps none.
	History *History
	// PublishTimeout bounds how long a publish waits for NATS's
	// acknowledgement, and each wait of a flush or a history read.
	PublishTimeout time.Duration
	// MaxPending bounds the publishes queued while NATS is unreachable.
	MaxPending int
	// ReconnectWait is the pause between reconnect attempts; 0 is the NATS
	// client's default (2s).
	ReconnectWait time.Duration
	// Connect holds further connection options: authentication and TLS.
	Connect []nats.Option
}

// History bounds the JetStream stream that keeps the messages of every
// topic of a prefix.
type History struct {
	// MaxMsgs is how many of the newest messages the stream keeps, over
	// all topics; 0 is no bound by count.
	MaxMsgs int
	// MaxMsgsPerTopic is how many of each topic's newest messages the
	// stream keeps; 0 bounds no topic alone.
	MaxMsgsPerTopic int
	// MaxBytes bounds the stream's size; 0 is no bound.
	MaxBytes int64
	// Replicas is how many NATS servers keep the stream; 0 is 1.
	Replicas int
	// MaxAge drops messages older than this; 0 keeps them until MaxMsgs
	// pushes them out.
	MaxAge time.Duration
	// Memory keeps the stream in the NATS server's memory instead of its
	// files: it does not survive a restart of NATS.
	Memory bool
}

// check reports what New cannot run with.
func (o *Options) check() error {
	if err := checkPrefix(o.SubjectPrefix); err != nil {
		return err
	}
	switch {
	case len(o.URLs) == 0:
		return errors.New("natshub: no NATS server URLs")
	case o.PublishTimeout <= 0:
		return errors.New("natshub: PublishTimeout must be positive")
	case o.MaxPending <= 0:
		return errors.New("natshub: MaxPending must be positive")
	case o.History != nil && o.History.MaxMsgs <= 0 && o.History.MaxMsgsPerTopic <= 0:
		return errors.New("natshub: History.MaxMsgs or History.MaxMsgsPerTopic must be positive")
	case o.History != nil && (o.History.MaxAge < 0 || o.History.MaxMsgs < 0 || o.History.MaxBytes < 0):
		return errors.New("natshub: History's bounds must not be negative")
	case o.History != nil && (o.History.Replicas < 0 || o.History.Replicas > MaxReplicas):
		return errors.New("natshub: History.Replicas must be 0 to 5")
	}
	return nil
}
