package natshub

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// streamState is what the hub knows of its stream.
type streamState struct {
	mu      sync.Mutex
	epoch   string // "" until the stream was first reached
	last    uint64 // the newest sequence seen
	ensured bool   // made or checked since the last connect
}

func (s *streamState) known() (epoch string, last uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch, s.last
}

func (s *streamState) noteSeq(seq uint64) {
	s.mu.Lock()
	s.last = max(s.last, seq)
	s.mu.Unlock()
}

func (s *streamState) setEnsured(ok bool) {
	s.mu.Lock()
	s.ensured = ok
	s.mu.Unlock()
}

func (s *streamState) isEnsured() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ensured
}

// epochOf names the history a stream holds: its creation time, so that a
// stream deleted and made again has another epoch.
func epochOf(info *jetstream.StreamInfo) string {
	return strconv.FormatInt(info.Created.UnixNano(), 36)
}

// streamConfig is the stream the hub keeps its history in.
func (h *Hub) streamConfig() jetstream.StreamConfig {
	hist, prefix := h.opts.History, h.opts.SubjectPrefix
	cfg := jetstream.StreamConfig{
		Name:              h.stream,
		Description:       "caddy-jsonrpc subscription hub history",
		Subjects:          []string{prefix + ".h.>"},
		Retention:         jetstream.LimitsPolicy,
		Discard:           jetstream.DiscardOld,
		MaxMsgs:           -1,
		MaxMsgsPerSubject: -1,
		MaxAge:            hist.MaxAge,
		MaxBytes:          -1,
		Storage:           jetstream.FileStorage,
		Replicas:          max(hist.Replicas, 1),
		Duplicates:        2 * time.Minute,
		AllowDirect:       true,
		RePublish:         &jetstream.RePublish{Source: prefix + ".h.>", Destination: prefix + ".l.>"},
	}
	if hist.MaxMsgs > 0 {
		cfg.MaxMsgs = int64(hist.MaxMsgs)
	}
	if hist.MaxMsgsPerTopic > 0 {
		// One more than asked: a resume that finds all the topic keeps
		// after its position cannot tell whether it missed any, so the
		// topic's max_msgs_per_topic newest always resume.
		cfg.MaxMsgsPerSubject = int64(hist.MaxMsgsPerTopic) + 1
	}
	if hist.MaxBytes > 0 {
		cfg.MaxBytes = hist.MaxBytes
	}
	if hist.Memory {
		cfg.Storage = jetstream.MemoryStorage
	}
	if hist.MaxAge > 0 && hist.MaxAge < cfg.Duplicates {
		cfg.Duplicates = hist.MaxAge
	}
	return cfg
}

// streamInfo reads the stream's state, and has the run loop adopt an
// epoch other than the one the hub knows.
func (h *Hub) streamInfo(ctx context.Context) (*jetstream.StreamInfo, error) {
	s, err := h.js.Stream(ctx, h.stream)
	if err != nil {
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			h.history.setEnsured(false)
			h.wake()
		}
		return nil, err
	}
	info := s.CachedInfo()
	if epoch, _ := h.history.known(); epoch != epochOf(info) {
		h.checkEpochSoon()
	}
	h.history.noteSeq(info.State.LastSeq)
	return info, nil
}

// Head implements rpccore.HistoryHub: for a topic with local subscribers,
// the sequence up to which this process delivered its messages; else the
// stream's last sequence. With NATS never reached, it is no position.
func (h *Hub) Head(ctx context.Context, name string) (rpccore.Position, error) {
	if h.js == nil {
		return rpccore.Position{}, nil
	}
	if h.closed.Load() {
		return rpccore.Position{}, rpccore.ErrHubClosed
	}
	if t := h.topic(name); t != nil {
		if pos := t.position(); pos.known {
			return rpccore.Position{Epoch: pos.epoch, Offset: pos.w}, nil
		}
	}
	if h.nc.IsConnected() {
		ctx, cancel := h.session.within(ctx, h.opts.PublishTimeout)
		defer cancel()
		if info, err := h.streamInfo(ctx); err == nil {
			return rpccore.Position{Epoch: epochOf(info), Offset: info.State.LastSeq}, nil
		}
	}
	epoch, last := h.history.known()
	if epoch == "" {
		return rpccore.Position{}, nil
	}
	return rpccore.Position{Epoch: epoch, Offset: last}, nil
}

// History implements rpccore.HistoryHub. It reads the topic's messages
// after the position, then the stream's state: ok when the stream is the
// one of after's epoch and still holds every message after it: its
// oldest is at most one past it, and with a bound per topic, the topic
// keeps a message at or before the position (the stream keeps one more
// than max_msgs_per_topic, so fewer than that many read means it does).
// Reading needs NATS and the stream's servers: while NATS is unreachable,
// or the stream's servers elect a new leader, History tries again until
// four times publish_timeout have passed, then answers an error.
func (h *Hub) History(ctx context.Context, name string, after rpccore.Position) ([]rpccore.Message, bool, error) {
	if h.js == nil || after.Epoch == "" || strings.HasPrefix(after.Epoch, "local-") {
		return nil, false, nil // positions no stream holds
	}
	h.m.historyReads.Inc()
	ctx, cancel := context.WithTimeout(ctx, 4*h.opts.PublishTimeout)
	defer cancel()
	for {
		if h.closed.Load() {
			return nil, false, rpccore.ErrHubClosed
		}
		msgs, ok, err := h.readHistory(ctx, name, after)
		if err == nil {
			return msgs, ok, nil
		}
		select {
		case <-ctx.Done():
			if !h.nc.IsConnected() {
				return nil, false, unreachable("the history cannot be read now; try again later")
			}
			return nil, false, serverError("reading the history", err)
		case <-time.After(historyRetry):
		}
	}
}

// historyRetry is the pause between two tries of a History.
const historyRetry = 100 * time.Millisecond

// readHistory is one try of History: its error is NATS's, or
// nats.ErrConnectionReconnecting while NATS is unreachable.
func (h *Hub) readHistory(ctx context.Context, name string, after rpccore.Position) ([]rpccore.Message, bool, error) {
	if !h.nc.IsConnected() {
		return nil, false, nats.ErrConnectionReconnecting
	}
	ctx, cancel := h.session.within(ctx, 4*h.opts.PublishTimeout)
	defer cancel()
	if epoch, _ := h.history.known(); epoch != after.Epoch {
		info, err := h.streamInfo(ctx)
		if err != nil {
			return h.historyFailed(ctx, err)
		}
		if epochOf(info) != after.Epoch {
			return nil, false, nil
		}
	}
	limit := h.readLimit()
	var msgs []rpccore.Message
	n, err := h.readStored(ctx, h.opts.SubjectPrefix+".h."+EncodeTopic(name), after.Offset+1, 0, limit,
		func(s storedMsg) {
			if h.valid(name, s.data) {
				msgs = append(msgs, rpccore.NewMessage(s.data, rpccore.Position{Epoch: after.Epoch, Offset: s.seq}))
			}
		})
	if err != nil {
		return h.historyFailed(ctx, err)
	}
	info, err := h.streamInfo(ctx)
	if err != nil {
		return h.historyFailed(ctx, err)
	}
	st := info.State
	if (limit > 0 && n >= limit) || epochOf(info) != after.Epoch || after.Offset > st.LastSeq || st.FirstSeq > after.Offset+1 {
		return nil, false, nil
	}
	return msgs, true, nil
}

// readLimit is how many of a topic's messages a History reads at most:
// past that, the stream cannot be holding all it missed. 0 is no limit.
func (h *Hub) readLimit() int {
	hist := h.opts.History
	switch {
	case hist.MaxMsgsPerTopic > 0:
		return hist.MaxMsgsPerTopic + 1
	case hist.MaxMsgs > 0:
		return hist.MaxMsgs + readBatch
	}
	return 0
}

// historyFailed answers a try of History whose reads failed: a stream
// that is gone no longer holds the messages; other failures are errors,
// tried again. No responders is either: the stream is gone, or its
// servers are electing a leader after one was lost.
func (h *Hub) historyFailed(ctx context.Context, err error) ([]rpccore.Message, bool, error) {
	if errors.Is(err, nats.ErrNoResponders) {
		if _, infoErr := h.streamInfo(ctx); infoErr != nil {
			err = infoErr
		}
	}
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, false, nil
	}
	return nil, false, err
}
