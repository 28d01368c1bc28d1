package natshub

import (
	"time"

	"go.uber.org/zap"
)

// retryWait is how long the run and send loops wait before trying again
// what failed: making the stream, sending the queue, repairing a topic.
const retryWait = time.Second

// run is the hub's background goroutine beside the send loop. Woken by a
// connect, a lost connection or a failure, it makes (or checks) the
// stream, adopts its epoch and reads what topics missed; once NATS takes
// publishes it wakes the send loop; while this process delivers alone it
// hands its subscribers what waits in the queue.
func (h *Hub) run() {
	defer close(h.loopDone)
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	var lastEpochCheck time.Time
	var complaints complaints
	for {
		select {
		case <-h.done:
			return
		case <-h.kick:
		case <-retry.C:
		}
		if h.js != nil && h.deliversAlone() {
			h.promoteQueue()
		}
		if !h.nc.IsConnected() {
			continue
		}
		failed := false
		if h.js != nil {
			if !h.history.isEnsured() {
				err := h.ensureStream()
				complaints.say(h.log, "stream", err, "could not make the hub's JetStream stream; publishes wait for it",
					zap.String("stream", h.stream))
				failed = err != nil
			}
			if h.epochCheck.Load() && h.history.isEnsured() {
				if wait := time.Until(lastEpochCheck.Add(retryWait)); wait > 0 {
					retry.Reset(wait)
				} else {
					h.epochCheck.Store(false)
					lastEpochCheck = time.Now()
					failed = h.checkEpoch() != nil || failed
				}
			}
			if h.history.isEnsured() && !h.repairTopics() {
				failed = true
			}
		}
		if h.up() {
			h.readyAgain()
		}
		if failed {
			retry.Reset(retryWait)
		}
	}
}

// checkEpochSoon has the run loop check the stream's epoch, when
// something suggests the stream was made again.
func (h *Hub) checkEpochSoon() {
	if !h.epochCheck.Swap(true) {
		h.wake()
	}
}

// flush waits until NATS has handled everything sent before.
func (h *Hub) flush() error {
	ctx, cancel := h.session.wait(h.opts.PublishTimeout)
	defer cancel()
	return h.nc.FlushWithContext(ctx)
}

// ensureStream makes the stream, or brings its configuration up to date,
// once NATS has this process's subscriptions; then adopts its state. When
// NATS refuses the configuration the error is a *StreamRefusedError, and
// the hub does not use the stream as it is.
func (h *Hub) ensureStream() error {
	if err := h.flush(); err != nil {
		return err
	}
	ctx, cancel := h.session.wait(h.opts.PublishTimeout)
	defer cancel()
	s, err := h.js.CreateOrUpdateStream(ctx, h.streamConfig())
	if err != nil {
		return h.streamRefused(err)
	}
	h.adopt(epochOf(s.CachedInfo()), s.CachedInfo().State.LastSeq)
	h.history.setEnsured(true)
	return nil
}

// checkEpoch reads the stream's state and adopts it when its epoch is not
// the one the hub knows.
func (h *Hub) checkEpoch() error {
	ctx, cancel := h.session.wait(h.opts.PublishTimeout)
	defer cancel()
	s, err := h.js.Stream(ctx, h.stream)
	if err != nil {
		return err
	}
	info := s.CachedInfo()
	if epoch, _ := h.history.known(); epoch != epochOf(info) {
		h.adopt(epochOf(info), info.State.LastSeq)
	}
	return nil
}

// adopt makes epoch, with last its last sequence, the stream's, and has
// every topic read what it missed. Topics subscribed to before NATS was
// ever reached start at last; when the stream was made again, every
// message it holds is new to the topics.
func (h *Hub) adopt(epoch string, last uint64) {
	h.history.mu.Lock()
	old := h.history.epoch
	h.history.epoch = epoch
	if old != epoch {
		h.history.last = last
	} else {
		h.history.last = max(h.history.last, last)
	}
	h.history.mu.Unlock()
	if old != "" && old != epoch {
		h.log.Warn("the hub's stream was made again: positions from before no longer resume", zap.String("stream", h.stream))
	}
	for _, t := range h.snapshot() {
		t.deliver.Lock()
		switch pos := t.position(); {
		case !pos.known:
			t.setPosition(watermark{epoch: epoch, w: last, known: true})
		case pos.epoch != epoch:
			t.setPosition(watermark{epoch: epoch, known: true})
		}
		t.deliver.Unlock()
		t.repair.Store(true)
	}
}

// repairTopics delivers what the topics marked for repair missed, and
// reports whether it could.
func (h *Hub) repairTopics() bool {
	ok := true
	for _, t := range h.snapshot() {
		if !t.repair.Swap(false) {
			continue
		}
		t.deliver.Lock()
		if pos := t.position(); pos.known && !h.repair(t, pos, 0) {
			t.repair.Store(true)
			ok = false
		}
		t.deliver.Unlock()
	}
	return ok
}

// complaints logs each kind of failure of the run loop once while it
// lasts, not at every retry.
type complaints map[string]string

func (c *complaints) say(log *zap.Logger, kind string, err error, msg string, fields ...zap.Field) {
	if *c == nil {
		*c = complaints{}
	}
	switch {
	case err == nil && (*c)[kind] != "":
		delete(*c, kind)
		log.Info("recovered: "+kind, fields...)
	case err != nil && (*c)[kind] != err.Error():
		(*c)[kind] = err.Error()
		log.Error(msg, append(fields, zap.Error(err))...)
	}
}
