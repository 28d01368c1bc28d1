package rpccore

// options.go holds the server's limits and hooks and the Options that set them.

import (
	"context"
	"time"
)

// Default limits, used when no Option changes them.
const (
	DefaultMaxRequestBytes  = 5 << 20  // 5 MiB
	DefaultMaxBatch         = 1000     // items
	DefaultMaxResponseBytes = 25 << 20 // 25 MiB
	DefaultMaxDepth         = 128      // levels of nesting
	DefaultBatchConcurrency = 16       // blocking calls at once per batch
)

// config is what Options set.
type config struct {
	maxRequestBytes  int
	maxBatch         int
	maxResponseBytes int
	maxDepth         int
	batchConcurrency int
	onPanic          PanicHandler
	filter           func(name string) bool
	observer         Observer
	hub              Hub
}

// Option changes a Server's configuration.
type Option func(*config)

// PanicHandler is told about a method that panicked: its name, the value it
// panicked with and the goroutine's stack. The caller got -32603.
type PanicHandler func(ctx context.Context, method string, v any, stack []byte)

// Observer is told about every call that reached a registered method, when
// it ends: the method's name, 0 or the error code answered, and how long it
// took. It must be safe for concurrent use and quick.
type Observer interface {
	ObserveCall(method string, code int, d time.Duration)
}

// WithMaxRequestBytes limits the size of a request document; larger ones
// are answered -32600 without being read. n <= 0 keeps the default.
func WithMaxRequestBytes(n int) Option { return func(c *config) { setPositive(&c.maxRequestBytes, n) } }

// WithMaxBatch limits the number of items in a batch; larger batches are
// answered with one -32600 and none of their calls run.
func WithMaxBatch(n int) Option { return func(c *config) { setPositive(&c.maxBatch, n) } }

// WithMaxResponseBytes limits the size of a response document, error
// objects included. The call whose answer crosses the limit, and every
// call after it in the batch, is answered -32003 instead; the later calls
// are not run.
func WithMaxResponseBytes(n int) Option {
	return func(c *config) { setPositive(&c.maxResponseBytes, n) }
}

// WithMaxDepth limits the nesting depth of a request document (the
// document itself is level 1); deeper documents are answered -32600.
func WithMaxDepth(n int) Option { return func(c *config) { setPositive(&c.maxDepth, n) } }

// WithBatchConcurrency sets how many calls to Blocking methods within one
// batch may run at the same time. 1 runs a batch strictly in order.
func WithBatchConcurrency(n int) Option {
	return func(c *config) { setPositive(&c.batchConcurrency, n) }
}

// WithPanicHandler sets the hook told about methods that panic.
func WithPanicHandler(h PanicHandler) Option { return func(c *config) { c.onPanic = h } }

// WithMethodFilter exposes only the methods for which allow returns true;
// Register skips the others, so callers get -32601 for them.
func WithMethodFilter(allow func(name string) bool) Option {
	return func(c *config) { c.filter = allow }
}

// WithObserver sets the Observer told about every call.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

func setPositive(dst *int, n int) {
	if n > 0 {
		*dst = n
	}
}

// WithHub sets the Hub that subscription sources publish through, shared
// with other servers (across configuration reloads, say). By default each
// Server has its own LocalHub.
func WithHub(h Hub) Option { return func(c *config) { c.hub = h } }
