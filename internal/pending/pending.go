// Package pending is the table of calls that one side of a JSON-RPC
// connection has sent and whose answers it awaits: the server's calls to a
// client over a peer connection, and a client's calls to a server. It
// hands out ids, matches each answer to its call by id, lets a caller give
// up, and fails every waiting call when the connection ends.
//
// It knows nothing of JSON-RPC beyond ids: an answer is handed over as the
// raw result and error members, copied, for the caller to decode.
package pending

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
)

// ErrClosed is what a call gets from a table closed without a reason.
var ErrClosed = errors.New("pending: connection closed")

// Table holds the calls awaiting answers. Its zero value is not ready: use
// New. It is safe for concurrent use: its calls are spread over shards,
// each with a lock of its own, so that callers opening calls and the
// reader delivering answers seldom wait for one another.
type Table struct {
	prefix    string        // ids are JSON strings "<prefix><n>" when set, integers otherwise
	next      atomic.Uint64 // the number of the last call opened
	shards    []shard       // calls by number, n & mask
	mask      uint64
	shift     uint                         // log2(len(shards))
	onDeliver func(c *Call, result []byte) // see SetDeliverHook

	finMu     sync.Mutex
	finished  []*Call      // Async calls resolved, for Finished
	nFinished atomic.Int32 // len(finished), read without the lock
}

// shard is one lock's share of a table's calls.
type shard struct {
	mu     sync.Mutex
	calls  callSet // the shard's waiting calls
	closed error   // set once Close has been called
	_      [8]byte // keeps neighbouring shards' locks off one cache line
}

// New returns an empty table with one lock: the size of an idle
// connection's table matters more than how many goroutines share it. Its
// ids are the JSON strings "<prefix>1", "<prefix>2", ... when prefix is
// not empty, and the integers 1, 2, ... when it is.
func New(prefix string) *Table { return NewSharded(prefix, 1) }

// NewSharded returns an empty table whose calls are spread over shards
// locks (rounded up to a power of two), for many goroutines opening calls
// while a reader delivers their answers.
func NewSharded(prefix string, shards int) *Table {
	n, shift := 1, uint(0)
	for n < shards {
		n *= 2
		shift++
	}
	return &Table{prefix: prefix, shards: make([]shard, n), mask: uint64(n - 1), shift: shift}
}

// shardOf returns the shard of call number n.
func (t *Table) shardOf(n uint64) *shard { return &t.shards[n&t.mask] }

// Call is one call awaiting its answer. After Wait returns, the caller
// reads the answer and then hands the Call back with Release.
type Call struct {
	// Note is the owner's own data about the call, from Open to Release.
	// The table never reads it; a deliver hook and Sweep may, under the
	// table's lock, while the call waits.
	Note any
	// Hooked makes Deliver call the table's deliver hook for this call.
	Hooked bool
	// Async makes the call's resolution add it to the table's finished
	// calls (Finished) instead of waking a waiter: its owner never Waits.
	Async bool

	table *Table
	n     uint64
	id    []byte        // the id as JSON text
	done  chan struct{} // holds one token once the call is resolved

	waited bool // Wait took the answer: the call left the table

	// Set, under the table's lock (its shard's), when the call is resolved.
	resolved bool
	result   []byte
	errObj   []byte
	err      error
}

var callPool = sync.Pool{New: func() any { return &Call{done: make(chan struct{}, 1)} }}

// Open registers a new call and returns it, or the table's error once it
// is closed.
func (t *Table) Open() (*Call, error) { return t.OpenNote(nil, false) }

// OpenNote is Open for a call whose Note and Hooked are set before the
// call enters the table, where a deliver hook or Sweep may read them.
func (t *Table) OpenNote(note any, hooked bool) (*Call, error) { return t.OpenAgain(nil, note, hooked) }

// OpenAgain is OpenNote with a call its owner kept (Keep) from an earlier
// call, or a new one when kept is nil: an owner that makes call after
// call from one goroutine, while the reader ends them on another, does
// not pass each through the pool of another processor. On failure kept
// is pooled.
func (t *Table) OpenAgain(kept *Call, note any, hooked bool) (*Call, error) {
	c := kept
	if c == nil {
		c = callPool.Get().(*Call)
	}
	c.Note, c.Hooked = note, hooked
	n := t.next.Add(1)
	sh := t.shardOf(n)
	sh.mu.Lock()
	if sh.closed != nil {
		err := sh.closed
		sh.mu.Unlock()
		callPool.Put(c)
		return nil, err
	}
	c.table, c.n = t, n
	c.id = t.appendID(c.id[:0], n)
	sh.calls.add(n, t.shift, c)
	sh.mu.Unlock()
	return c, nil
}

// appendID appends the JSON form of id n.
func (t *Table) appendID(dst []byte, n uint64) []byte {
	if t.prefix == "" {
		return strconv.AppendUint(dst, n, 10)
	}
	dst = append(dst, '"')
	dst = append(dst, t.prefix...)
	dst = strconv.AppendUint(dst, n, 10)
	return append(dst, '"')
}

// parseID returns the number of a raw JSON id this table handed out, or
// false for any other id.
func (t *Table) parseID(raw []byte) (uint64, bool) {
	if t.prefix != "" {
		p := len(t.prefix)
		if len(raw) < p+3 || raw[0] != '"' || raw[len(raw)-1] != '"' || string(raw[1:1+p]) != t.prefix {
			return 0, false
		}
		raw = raw[1+p : len(raw)-1]
	}
	if len(raw) == 0 || len(raw) > 20 || raw[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// ID returns the call's id as JSON text, to send with the request. It is
// valid until Release.
func (c *Call) ID() []byte { return c.id }

// Deliver hands an answer to the call whose id is the raw JSON id: result
// and errObj are the raw values of the answer's result and error members
// (nil when absent), copied. It reports false when no call waits for that
// id: one this table never handed out, already answered, or given up.
func (t *Table) Deliver(id, result, errObj []byte) bool {
	sh, c := t.takeID(id)
	if c == nil {
		return false
	}
	defer sh.mu.Unlock()
	if c.Hooked && t.onDeliver != nil {
		t.onDeliver(c, result)
	}
	if result != nil {
		c.result = append(c.result[:0], result...)
	}
	if errObj != nil {
		c.errObj = append(c.errObj[:0], errObj...)
	}
	c.resolve(nil)
	return true
}

// resolve marks c answered (or failed with err) and wakes its waiter. The
// caller holds the table's lock.
func (c *Call) resolve(err error) {
	c.resolved, c.err = true, err
	if c.Async {
		t := c.table
		t.finMu.Lock()
		t.finished = append(t.finished, c)
		t.nFinished.Store(int32(len(t.finished)))
		t.finMu.Unlock()
		return
	}
	c.done <- struct{}{}
}

// Detach makes c Async: its resolution goes to Finished from now on. It
// reports false when c was resolved already; its owner then takes the
// answer with Wait, as for any other call.
func (c *Call) Detach() bool {
	sh := c.table.shardOf(c.n)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c.resolved {
		return false
	}
	c.Async = true
	return true
}

// Finished appends the Async calls resolved since it was last called to
// dst, and returns it. Their owner reads each answer with Answer, then
// Releases the call.
func (t *Table) Finished(dst []*Call) []*Call {
	if t.nFinished.Load() == 0 {
		return dst
	}
	t.finMu.Lock()
	dst = append(dst, t.finished...)
	clear(t.finished)
	t.finished = t.finished[:0]
	t.nFinished.Store(0)
	t.finMu.Unlock()
	return dst
}

// Answer returns the answer of an Async call that Finished returned, as
// Wait returns it.
func (c *Call) Answer() (result, errObj []byte, err error) {
	c.waited = true
	if c.err != nil {
		return nil, nil, c.err
	}
	return present(c.result), present(c.errObj), nil
}

// Wait waits for the call's answer until ctx ends. It returns the raw
// result and error members of the answer (valid until Release), or the
// error that failed the call: the table's close reason, or ctx's error,
// in which case the call is given up and a late answer is ignored.
func (c *Call) Wait(ctx context.Context) (result, errObj []byte, err error) {
	if done := ctx.Done(); done == nil {
		<-c.done
	} else {
		select {
		case <-c.done:
		case <-done:
			if !c.table.forget(c) {
				<-c.done // resolved meanwhile: take the answer
				break
			}
			return nil, nil, ctx.Err()
		}
	}
	c.waited = true
	if c.err != nil {
		return nil, nil, c.err
	}
	return present(c.result), present(c.errObj), nil
}

// present returns a member kept by Deliver, or nil when it was absent (a
// member present is never empty).
func present(member []byte) []byte {
	if len(member) == 0 {
		return nil
	}
	return member
}

// forget removes c unless it was resolved, and reports whether it did.
func (t *Table) forget(c *Call) bool {
	sh := t.shardOf(c.n)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c.resolved {
		return false
	}
	sh.calls.remove(c.n, t.shift)
	c.resolved = true // given up: nothing will resolve it now
	return true
}

// Release hands c back once its caller is done with it (after Wait, or
// instead of Wait when the request could not be sent). A call still
// waiting is given up.
func (c *Call) Release() {
	c.Keep()
	callPool.Put(c)
}

// Keep is Release for an owner that keeps c to open its next call with
// (OpenAgain) instead of giving it back to the pool. A call kept and not
// opened again may be released (or kept) once more.
func (c *Call) Keep() {
	if !c.waited && c.table != nil { // opened, and not kept since
		t := c.table
		t.forget(c)
		sh := t.shardOf(c.n)
		sh.mu.Lock()
		select {
		case <-c.done: // resolved and never waited for
		default:
		}
		sh.mu.Unlock()
	}
	c.table, c.resolved, c.err, c.Note, c.Hooked, c.Async, c.waited = nil, false, nil, nil, false, false, false
	c.result, c.errObj = c.result[:0], c.errObj[:0]
	if cap(c.result) > maxKeptAnswer {
		c.result = nil
	}
	if cap(c.errObj) > maxKeptAnswer {
		c.errObj = nil
	}
}

// maxKeptAnswer bounds the answer buffer a released call keeps.
const maxKeptAnswer = 64 << 10

// FailID fails the call whose id is the raw JSON id with err, unless it
// was answered or given up already, and reports whether it did.
func (t *Table) FailID(id []byte, err error) bool {
	sh, c := t.takeID(id)
	if c == nil {
		return false
	}
	defer sh.mu.Unlock()
	c.resolve(err)
	return true
}

// takeID removes the waiting call whose id is the raw JSON id from its
// shard and returns both, the shard's lock held for the caller to
// release; or nil when no call waits for that id.
func (t *Table) takeID(id []byte) (*shard, *Call) {
	n, ok := t.parseID(id)
	if !ok {
		return nil, nil
	}
	sh := t.shardOf(n)
	sh.mu.Lock()
	c := sh.calls.get(n, t.shift)
	if c == nil {
		sh.mu.Unlock()
		return nil, nil
	}
	sh.calls.remove(n, t.shift)
	return sh, c
}

// Sweep calls f, under the table's lock (its shard's), for each call
// awaiting its answer, and fails those for which f returns an error with
// it. A client
// that lost its connection sweeps its calls to fail those whose outcome is
// unknown and keep the others for the next connection. f must not use the
// table.
func (t *Table) Sweep(f func(c *Call) error) {
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		sh.calls.each(func(c *Call) bool {
			err := f(c)
			if err != nil {
				c.resolve(err)
			}
			return err != nil
		})
		sh.mu.Unlock()
	}
}

// SetDeliverHook sets f, which Deliver calls under the table's lock (its shard's) for
// each Hooked call it resolves, with the answer's raw result, before the call's
// waiter wakes: the owner acts on answers in the order they arrive (a
// client registers a subscription before it reads the next message). f
// must not use the table. It is set before the table is used.
func (t *Table) SetDeliverHook(f func(c *Call, result []byte)) { t.onDeliver = f }

// Issued reports whether id is one this table handed out, answered or
// not: an answer with another id cannot be a late one.
func (t *Table) Issued(id []byte) bool {
	n, ok := t.parseID(id)
	if !ok {
		return false
	}
	return n <= t.next.Load()
}

// Len returns the number of calls awaiting answers.
func (t *Table) Len() int {
	n := 0
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		n += sh.calls.len
		sh.mu.Unlock()
	}
	return n
}

// Close fails every waiting call with err (ErrClosed when nil) and makes
// Open fail with it from now on.
func (t *Table) Close(err error) {
	if err == nil {
		err = ErrClosed
	}
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		if sh.closed == nil {
			sh.closed = err
		}
		sh.calls.each(func(c *Call) bool {
			c.resolve(err)
			return true
		})
		sh.mu.Unlock()
	}
}
