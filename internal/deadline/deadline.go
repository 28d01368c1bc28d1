// Package deadline keeps a connection's deadline far enough away while
// setting it seldom. Setting a deadline on a net.Conn moves a runtime timer
// (a lock and a heap update, twice when it is cleared after the write);
// a connection that writes a stream of small flushes would pay that on
// every one of them.
package deadline

import "time"

// Lazy is the deadline last set on one direction of a connection. A
// deadline still at least the timeout away is left as it is; one that is
// nearer is set a quarter of the timeout further than needed, so that a
// busy connection sets it about once every quarter of the timeout. An
// operation then gives up after between the timeout and 1.25 times it.
// Lazy is not safe for concurrent use: its callers hold their
// connection's read or write lock. Its zero value knows nothing of the
// connection's deadline.
type Lazy struct {
	at    time.Time // the deadline last set; zero for none
	known bool      // at is the connection's deadline
}

// Renew returns the deadline to set for an operation about to start and
// true, when the deadline last set is less than timeout away (or unknown);
// otherwise false, and the connection's deadline stays as it is. A timeout
// of 0 or less asks for no deadline: Renew returns the zero time and true
// when one is set (or unknown).
func (l *Lazy) Renew(timeout time.Duration) (time.Time, bool) {
	if timeout <= 0 {
		if l.known && l.at.IsZero() {
			return time.Time{}, false
		}
		l.at, l.known = time.Time{}, true
		return l.at, true
	}
	now := time.Now()
	if l.known && !l.at.IsZero() && l.at.Sub(now) >= timeout {
		return time.Time{}, false
	}
	l.at, l.known = now.Add(timeout+timeout/4), true
	return l.at, true
}

// Forget records that the connection's deadline was set by other means,
// so that the next Renew sets it.
func (l *Lazy) Forget() { l.known = false }
