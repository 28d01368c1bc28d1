package rpccore

import "time"

// messageRing keeps a topic's newest messages for LocalHub, numbered from
// 1 with no gaps, within HistoryLimits.
type messageRing struct {
	msgs  []Message // a ring once it holds MaxMessages
	times []int64   // when each was published, in UnixNano
	start int       // index of the oldest
	n     int       // how many are held
	last  uint64    // offset of the newest message ever published
}

// add numbers payload as the topic's next message, keeps it, drops what
// limits no longer allow, and returns the message.
func (r *messageRing) add(payload []byte, epoch string, limits HistoryLimits) Message {
	r.last++
	m := NewMessage(payload, Position{Epoch: epoch, Offset: r.last})
	now := time.Now().UnixNano()
	r.expire(now, limits)
	if r.msgs == nil {
		size := min(limits.MaxMessages, 64)
		r.msgs, r.times = make([]Message, size), make([]int64, size)
	}
	if r.n == len(r.msgs) && r.n < limits.MaxMessages {
		r.grow(min(2*len(r.msgs), limits.MaxMessages))
	}
	if r.n == len(r.msgs) { // full: the newest replaces the oldest
		r.msgs[r.start], r.times[r.start] = m, now
		r.start = (r.start + 1) % len(r.msgs)
		return m
	}
	i := (r.start + r.n) % len(r.msgs)
	r.msgs[i], r.times[i] = m, now
	r.n++
	return m
}

// grow makes room for size messages, keeping their order.
func (r *messageRing) grow(size int) {
	msgs, times := make([]Message, size), make([]int64, size)
	for i := 0; i < r.n; i++ {
		j := (r.start + i) % len(r.msgs)
		msgs[i], times[i] = r.msgs[j], r.times[j]
	}
	r.msgs, r.times, r.start = msgs, times, 0
}

// expire drops messages older than limits allow at now.
func (r *messageRing) expire(now int64, limits HistoryLimits) {
	if limits.MaxAgeNanos <= 0 {
		return
	}
	for r.n > 0 && now-r.times[r.start] > limits.MaxAgeNanos {
		r.msgs[r.start] = Message{}
		r.start = (r.start + 1) % len(r.msgs)
		r.n--
	}
}

// oldest returns the offset of the oldest message held, or last+1 when
// none is.
func (r *messageRing) oldest() uint64 { return r.last - uint64(r.n) + 1 }

// after returns the messages after offset, oldest first, and whether the
// ring holds every one of them.
func (r *messageRing) after(offset uint64, limits HistoryLimits) ([]Message, bool) {
	r.expire(time.Now().UnixNano(), limits)
	switch {
	case offset > r.last:
		return nil, false // a position this history never gave
	case offset == r.last:
		return nil, true
	case offset+1 < r.oldest():
		return nil, false
	}
	count := int(r.last - offset)
	out := make([]Message, count)
	first := r.n - count
	for i := range out {
		out[i] = r.msgs[(r.start+first+i)%len(r.msgs)]
	}
	return out, true
}
