package rpccore

// options.go holds the server's limits and hooks and the Options that set them.

import (
	"context"
	"time"
)

// config is what Options set.
type config struct {
	maxRequestBytes  int
	maxBatch         int
	maxResponseBytes int
	maxDepth         int
	batchConcurrency int
	filter           func(name string) bool
	gate             func(ctx context.Context, method string) error
	observer         Observer
	timingSample     int           // time one call in this many of methods that do not block; <= 1 times all
	panics           PanicObserver // observer, when it hears of panics
	peerEvents       PeerObserver  // observer, when it hears of peers; never nil
	hub              Hub
	tracer           CallTracer
}

// Option changes a Server's configuration.
type Option func(*config)

// Observer hears what a server does, for metrics and logs. Every Observer
// hears of calls; one that also implements PanicObserver hears of methods
// that panic, and one that implements PeerObserver of what happens on the
// server's peer connections. Its methods must be quick and safe for
// concurrent use.
type Observer interface {
	// ObserveCall is told about every call that reached a registered
	// method, when it ends: the method's name, 0 or the error code
	// answered, and how long it took, or NotTimed for a call that was not
	// timed (WithCallTimingSample).
	ObserveCall(method string, code int, d time.Duration)
}

// NotTimed is the duration an Observer hears for a call that was not
// timed.
const NotTimed time.Duration = -1

// MethodObserver is an Observer that hears of each method's calls through
// a CallObserver of that method's own, asked for once as the method is
// registered, so that a call costs no lookup by its name. Calls of a
// method whose CallObserver is nil go to ObserveCall.
type MethodObserver interface {
	Observer
	ObserverFor(method string) CallObserver
}

// CallObserver hears of the calls of one method, as Observer.ObserveCall
// does: 0 or the error code answered, and how long the call took (or
// NotTimed). It must be quick and safe for concurrent use.
type CallObserver interface {
	ObserveCall(code int, d time.Duration)
}

// PanicObserver is an Observer told about a method that panicked: its name,
// the value it panicked with and the goroutine's stack. The caller got
// -32603 and the server goes on.
type PanicObserver interface {
	Observer
	ObservePanic(ctx context.Context, method string, v any, stack []byte)
}

// PeerObserver is an Observer told what happens on peer connections.
type PeerObserver interface {
	Observer
	// MessagesIn counts messages read.
	MessagesIn(n int)
	// MessagesOut counts messages written.
	MessagesOut(n int)
	// SubscriptionsChanged counts subscriptions opened (+) and ended (-).
	SubscriptionsChanged(delta int)
	// NotificationsDropped counts notifications dropped for a slow client.
	NotificationsDropped(n int)
}

// noPeerEvents is the PeerObserver of a server whose Observer is not one.
type noPeerEvents struct{}

func (noPeerEvents) ObserveCall(string, int, time.Duration) {}
func (noPeerEvents) MessagesIn(int)                         {}
func (noPeerEvents) MessagesOut(int)                        {}
func (noPeerEvents) SubscriptionsChanged(int)               {}
func (noPeerEvents) NotificationsDropped(int)               {}

// WithMaxRequestBytes limits the size of a request document; larger ones
// are answered -32600 without being read. n <= 0 keeps the default.
func WithMaxRequestBytes(n int) Option { return func(c *config) { c.maxRequestBytes = n } }

// WithMaxBatch limits the number of items in a batch; larger batches are
// answered with one -32600 and none of their calls run.
func WithMaxBatch(n int) Option { return func(c *config) { c.maxBatch = n } }

// WithMaxResponseBytes limits the size of a response document, error
// objects included. The call whose answer crosses the limit, and every
// call after it in the batch, is answered -32003 instead; the later calls
// are not run.
func WithMaxResponseBytes(n int) Option {
	return func(c *config) { c.maxResponseBytes = n }
}

// WithMaxDepth limits the nesting depth of a request document (the
// document itself is level 1); deeper documents are answered -32600.
func WithMaxDepth(n int) Option { return func(c *config) { c.maxDepth = n } }

// WithBatchConcurrency sets how many calls to Blocking methods within one
// batch may run at the same time. 1 runs a batch strictly in order.
func WithBatchConcurrency(n int) Option {
	return func(c *config) { c.batchConcurrency = n }
}

// WithMethodFilter exposes only the methods for which allow returns true;
// Register skips the others, so callers get -32601 for them.
func WithMethodFilter(allow func(name string) bool) Option {
	return func(c *config) { c.filter = allow }
}

// WithCallGate has gate decide, before each call to a registered method
// runs (each call of a batch, each message of a peer), whether it may:
// nil lets it run; an error answers the call instead, as a method's error
// is answered (an *Error keeps its code, message and data). ErrMethodHidden
// answers exactly as for a method that is not registered. ctx is the
// call's context, with its RequestInfo. gate must be quick and safe for
// concurrent use; a notification it refuses is dropped.
func WithCallGate(gate func(ctx context.Context, method string) error) Option {
	return func(c *config) { c.gate = gate }
}

// WithObserver sets the Observer told about every call, and, as it
// implements them, about panics and peer connections.
func WithObserver(o Observer) Option {
	return func(c *config) {
		c.observer = o
		c.panics, _ = o.(PanicObserver)
		if po, ok := o.(PeerObserver); ok {
			c.peerEvents = po
		}
	}
}

// WithCallTracer sets the CallTracer told of every call. A server without
// one does no work for it.
func WithCallTracer(t CallTracer) Option { return func(c *config) { c.tracer = t } }

// WithCallTimingSample has the server time only one call in n, chosen at
// random, of the methods that are not Blocking; the Observer hears of the
// others with NotTimed. Every call of a Blocking method is timed. A call
// of a method that does not block often takes a few hundred nanoseconds,
// of which reading the clock at its start and end would be a fifth or
// more. n <= 1 times every call, the default.
func WithCallTimingSample(n int) Option { return func(c *config) { c.timingSample = n } }

// WithHub sets the Hub that subscription sources publish through, shared
// with other servers (across configuration reloads, say). By default each
// Server has its own LocalHub.
func WithHub(h Hub) Option { return func(c *config) { c.hub = h } }
