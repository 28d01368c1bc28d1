package rpccore

// server.go holds the Server: its method table and registration.

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// Server processes JSON-RPC 2.0 documents against a table of methods. It is
// safe for concurrent use; methods may be registered while it serves.
type Server struct {
	methods atomic.Pointer[methodTable] // replaced whole on Register
	mu      sync.Mutex                  // serialises Register
	names   map[string]bool             // every name registered, hidden ones included; under mu
	cfg     config

	subscriptions map[string]*subscriptionSources // by namespace, under mu

	forwarders atomic.Pointer[[]*forwarder] // RegisterForwarder's, in order; nil when none
}

// entry is a registered method under its name.
type entry struct {
	name string
	*Method
	calls CallObserver // what hears of its calls; nil for the server's Observer
}

// NewServer returns a Server with no methods, configured by opts.
func NewServer(opts ...Option) *Server {
	s := &Server{cfg: config{peerEvents: noPeerEvents{}}}
	for _, o := range opts {
		o(&s.cfg)
	}
	c := &s.cfg
	c.maxRequestBytes = orDefault(c.maxRequestBytes, DefaultMaxRequestBytes)
	c.maxBatch = orDefault(c.maxBatch, DefaultMaxBatch)
	c.maxResponseBytes = orDefault(c.maxResponseBytes, DefaultMaxResponseBytes)
	c.maxDepth = orDefault(c.maxDepth, DefaultMaxDepth)
	c.batchConcurrency = orDefault(c.batchConcurrency, DefaultBatchConcurrency)
	if s.cfg.hub == nil {
		s.cfg.hub = NewLocalHub()
	}
	s.methods.Store(newMethodTable(nil))
	return s
}

// Methods maps method names to Methods, for registering a service's
// methods in one call with RegisterMethods.
type Methods map[string]*Method

// ErrDuplicateMethod is what a *DuplicateMethodError is (errors.Is): a
// name registered twice.
var ErrDuplicateMethod = errors.New("rpccore: method already registered")

// DuplicateMethodError reports a method name registered twice.
type DuplicateMethodError struct {
	// Method is the name registered twice.
	Method string
}

func (e *DuplicateMethodError) Error() string {
	return "method " + strconv.Quote(e.Method) + " is registered twice"
}

// Is makes errors.Is(err, ErrDuplicateMethod) true.
func (e *DuplicateMethodError) Is(target error) bool { return target == ErrDuplicateMethod }

// Register adds m under name, as RegisterMethods does.
func (s *Server) Register(name string, m *Method) error {
	return s.RegisterMethods(Methods{name: m})
}

// RegisterMethods adds every method of ms under its name, all of them or,
// on an error, none. It fails for an empty name, one that starts with
// "rpc." (reserved by the specification), one already registered (a
// *DuplicateMethodError), and a method built with an error (a bad param
// name or default). A method the server's filter hides is not served (its
// callers get -32601) but its name counts as registered, so that whether
// two registrations collide does not depend on the filter. Errors name the
// first bad method in name order.
func (s *Server) RegisterMethods(ms Methods) error {
	return s.register(ms, false)
}

// RegisterExtension adds m under name, which must start with "rpc.": the
// specification reserves those names for extensions of the server itself,
// such as rpc.discover, so RegisterMethods refuses them. The method filter
// does not apply to extensions. A name registered twice is a
// *DuplicateMethodError.
func (s *Server) RegisterExtension(name string, m *Method) error {
	if !strings.HasPrefix(name, "rpc.") || name == "rpc." {
		return errors.New("rpccore: extension names start with \"rpc.\": " + strconv.Quote(name))
	}
	return s.register(Methods{name: m}, true)
}

// register adds ms, extensions (exempt from the filter) or not.
func (s *Server) register(ms Methods, extensions bool) error {
	names := make([]string, 0, len(ms))
	for name := range ms {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := checkMethod(name, ms[name], extensions); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range names {
		if s.names[name] {
			return &DuplicateMethodError{Method: name}
		}
	}
	old := s.methods.Load().byName
	next := make(map[string]*entry, len(old)+len(ms))
	maps.Copy(next, old)
	if s.names == nil {
		s.names = map[string]bool{}
	}
	for _, name := range names {
		s.names[name] = true
		if extensions || s.cfg.filter == nil || s.cfg.filter(name) {
			next[name] = s.newEntry(name, ms[name])
		}
	}
	s.methods.Store(newMethodTable(next))
	return nil
}

// newEntry makes the entry of a method registered under name, with what
// hears of its calls when the server's Observer is a MethodObserver.
func (s *Server) newEntry(name string, m *Method) *entry {
	e := &entry{name: name, Method: m}
	if mo, ok := s.cfg.observer.(MethodObserver); ok {
		e.calls = mo.ObserverFor(name)
	}
	return e
}

// checkMethod fails for a name or method that cannot be registered.
func checkMethod(name string, m *Method, extension bool) error {
	switch {
	case m == nil:
		return errors.New("rpccore: nil method " + strconv.Quote(name))
	case m.err != nil:
		return errors.New("method " + strconv.Quote(name) + ": " + m.err.Error())
	case name == "":
		return errors.New("rpccore: empty method name")
	case !extension && strings.HasPrefix(name, "rpc."):
		return errors.New("rpccore: method names starting with \"rpc.\" are reserved: " + strconv.Quote(name))
	}
	return nil
}

// Registered returns the names of every method registered, those the
// method filter hides included, in name order.
func (s *Server) Registered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.names))
}

// Hub returns the server's Hub: the one given WithHub, or its own LocalHub.
func (s *Server) Hub() Hub { return s.cfg.hub }

// Methods returns the names of the methods the server serves (those the
// method filter hides left out), in no order.
func (s *Server) Methods() []string {
	table := s.methods.Load().byName
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	return names
}

// Method returns the method the server serves under name, or nil when
// none is registered under it or the method filter hides it.
func (s *Server) Method(name string) *Method {
	if e := s.methods.Load().byName[name]; e != nil {
		return e.Method
	}
	return nil
}

// lookup finds the method a request names, or nil. It looks once per
// request: a batch asks for each of its methods before answering them.
func (s *Server) lookup(r *request) *entry {
	if r.looked {
		return r.entry
	}
	var e *entry
	if !r.escaped {
		e = s.methods.Load().find(r.method)
	} else {
		var scratch [64]byte
		e = s.methods.Load().find(jsontext.AppendUnquote(scratch[:0], r.method))
	}
	r.entry, r.looked = e, true
	return e
}

// methodTable is an immutable snapshot of the registered methods.
type methodTable struct {
	byName map[string]*entry
	// quick holds the methods whose slot (see quickSlot) no other method
	// shares: one comparison finds them without hashing the name.
	quick [256]*entry
	// blocking reports whether any method is Blocking; batches of servers
	// without one skip looking for them.
	blocking bool
}

// quickSlot spreads names over the quick table by length and two bytes.
func quickSlot[S ~string | ~[]byte](name S) int {
	n := len(name)
	if n == 0 {
		return 0
	}
	return (n*7 + int(name[0])*3 + int(name[n-1])) & 255
}

func newMethodTable(byName map[string]*entry) *methodTable {
	t := &methodTable{byName: byName}
	if t.byName == nil {
		t.byName = map[string]*entry{}
	}
	var shared [256]bool
	for name, e := range t.byName {
		t.blocking = t.blocking || e.blocking
		i := quickSlot(name)
		if t.quick[i] != nil || shared[i] {
			t.quick[i], shared[i] = nil, true
			continue
		}
		t.quick[i] = e
	}
	return t
}

// find returns the method called name, or nil.
func (t *methodTable) find(name []byte) *entry {
	if e := t.quick[quickSlot(name)]; e != nil && e.name == string(name) {
		return e
	}
	return t.byName[string(name)]
}
