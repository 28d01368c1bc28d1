// Package demo is the built-in demonstration service: the example methods of
// the JSON-RPC 2.0 specification and the five methods of the benchmark
// workload. It depends on rpccore only, so tests, benchmarks and the
// WebAssembly host use it without Caddy.
package demo

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Register adds the demo methods to s, and the subscriptions "ticks",
// "flood" and "chat" (demo_subscribe, demo_unsubscribe) with demo_publish,
// which broadcasts through s.Hub().
func Register(s *rpccore.Server) error {
	err := s.RegisterMethods(rpccore.Methods{
		// The specification's examples (section 7).
		"subtract": rpccore.Func2(Subtract, "minuend", "subtrahend").Describe(rpccore.Doc{
			Summary: "Returns minuend - subtrahend.",
		}),
		"sum": rpccore.Variadic(Sum, "numbers").Describe(rpccore.Doc{
			Summary: "Returns the sum of any number of numbers.",
			Params:  map[string]string{"numbers": "By position, the params are the numbers themselves."},
		}),
		"update":       rpccore.Raw(acceptAnything).Describe(anything),
		"notify_hello": rpccore.Raw(acceptAnything).Describe(anything),
		"notify_sum":   rpccore.Raw(acceptAnything).Describe(anything),
		"get_data":     rpccore.Func0(GetData).Describe(rpccore.Doc{Summary: `Returns ["hello", 5].`}),
		// The benchmark workload.
		"add":    rpccore.Func2(Add, "a", "b").Describe(rpccore.Doc{Summary: "Returns a + b."}),
		"addInt": rpccore.Func2(AddInt, "a", "b").Describe(rpccore.Doc{Summary: "Returns a + b, integers."}),
		"NullableFloatToNullableFloat": rpccore.Func1(NullableFloatToNullableFloat, "x").Describe(rpccore.Doc{
			Summary: "Returns x, null or not.",
		}),
		"Test2":    rpccore.Func1(Test2, "x").Describe(rpccore.Doc{Summary: "Returns x."}),
		"StringMe": rpccore.Func1(StringMe, "s").Describe(rpccore.Doc{Summary: "Returns s."}),
		// A method that waits, for trying blocking calls.
		"delay": rpccore.Func1(Delay, "ms").Blocking().Describe(rpccore.Doc{
			Summary: "Waits ms milliseconds (0 to 10000), then returns ms.",
		}),
	})
	if err != nil {
		return err
	}
	return registerSubscriptions(s)
}

// Subtract returns minuend - subtrahend.
func Subtract(_ context.Context, minuend, subtrahend float64) (float64, error) {
	return minuend - subtrahend, nil
}

// Sum returns the sum of any number of numbers.
func Sum(_ context.Context, numbers []float64) (float64, error) {
	total := 0.0
	for _, n := range numbers {
		total += n
	}
	return total, nil
}

// anything describes the methods of acceptAnything.
var anything = rpccore.Doc{
	Summary: "Accepts any params and answers null (the specification's examples of notifications).",
}

// acceptAnything takes any params and answers null.
func acceptAnything(context.Context, []byte, *rpccore.ResultWriter) error { return nil }

// getData is the answer of get_data.
var getData = rpccore.RawJSON(`["hello",5]`)

// GetData returns ["hello", 5].
func GetData(context.Context) (rpccore.RawJSON, error) { return getData, nil }

// Add returns a + b.
func Add(_ context.Context, a, b float64) (float64, error) { return a + b, nil }

// AddInt returns a + b.
func AddInt(_ context.Context, a, b int) (int, error) { return a + b, nil }

// NullableFloatToNullableFloat returns x, null or not.
func NullableFloatToNullableFloat(_ context.Context, x rpccore.Nullable[float32]) (rpccore.Nullable[float32], error) {
	return x, nil
}

// Test2 returns x.
func Test2(_ context.Context, x float64) (float64, error) { return x, nil }

// StringMe returns s.
func StringMe(_ context.Context, s string) (string, error) { return s, nil }

// MaxDelay is the longest delay accepts.
const MaxDelay = 10 * time.Second

// Delay waits ms milliseconds (at most MaxDelay), or until the call is
// cancelled, and returns ms.
func Delay(ctx context.Context, ms int) (int, error) {
	d := time.Duration(ms) * time.Millisecond
	if d < 0 || d > MaxDelay {
		return 0, &rpccore.Error{Code: rpccore.CodeInvalidParams, Message: "Invalid params",
			Data: "ms must be between 0 and " + strconv.Itoa(int(MaxDelay/time.Millisecond))}
	}
	t := timers.Get().(*time.Timer)
	t.Reset(d)
	defer func() {
		t.Stop()
		timers.Put(t)
	}()
	select {
	case <-t.C:
		return ms, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// timers recycles Delay's timers, stopped: a timer made for each call costs
// more than the call. A stopped timer's channel is empty and a Reset one
// sends nothing from before it (Go 1.23 on).
var timers = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}
