package inprocess

// Caller sends one request document and returns the response document. The
// returned bytes are valid until the next call. A Caller is used by one
// goroutine at a time.
type Caller func(req []byte) []byte

// Impl is one JSON-RPC server implementation under test.
type Impl struct {
	Name string // names the implementation in benchmark names
	// Rename maps a workload method name to the name this implementation
	// serves it under; nil when the names are the same.
	Rename func(string) string
	// NewCaller returns a Caller for one goroutine and a function that
	// releases what it holds.
	NewCaller func() (Caller, func())
}

// All returns every implementation, ours first.
func All() []Impl {
	return []Impl{Ours(), OursTraced(), Geth(), JRPC2(), StdJSON(), GoccyJSON()}
}
