package rpccore

// server.go holds the Server: its method table and registration.

import (
	"errors"
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
	cfg     config

	subscriptions map[string]*subscriptionSources // by namespace, under mu
}

// entry is a registered method under its name.
type entry struct {
	name string
	*Method
}

// NewServer returns a Server with no methods, configured by opts.
func NewServer(opts ...Option) *Server {
	s := &Server{cfg: config{
		maxRequestBytes:  DefaultMaxRequestBytes,
		maxBatch:         DefaultMaxBatch,
		maxResponseBytes: DefaultMaxResponseBytes,
		maxDepth:         DefaultMaxDepth,
		batchConcurrency: DefaultBatchConcurrency,
	}}
	for _, o := range opts {
		o(&s.cfg)
	}
	if s.cfg.hub == nil {
		s.cfg.hub = NewLocalHub()
	}
	s.methods.Store(newMethodTable(nil))
	return s
}

// ErrDuplicateMethod is returned by Register for a name already taken.
var ErrDuplicateMethod = errors.New("rpccore: method already registered")

// Register adds m under name. It fails when the name is empty, starts with
// "rpc." (reserved by the specification), is already registered, or when m
// was built with an error (a bad param name or default). A method the
// server's filter rejects is skipped without error.
func (s *Server) Register(name string, m *Method) error {
	switch {
	case m == nil:
		return errors.New("rpccore: nil method " + strconv.Quote(name))
	case m.err != nil:
		return errors.New("method " + strconv.Quote(name) + ": " + m.err.Error())
	case name == "":
		return errors.New("rpccore: empty method name")
	case strings.HasPrefix(name, "rpc."):
		return errors.New("rpccore: method names starting with \"rpc.\" are reserved: " + strconv.Quote(name))
	}
	if s.cfg.filter != nil && !s.cfg.filter(name) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.methods.Load().byName
	if _, dup := old[name]; dup {
		return errors.Join(ErrDuplicateMethod, errors.New("method "+strconv.Quote(name)+" is registered twice"))
	}
	next := make(map[string]*entry, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[name] = &entry{name: name, Method: m}
	s.methods.Store(newMethodTable(next))
	return nil
}

// Hub returns the server's Hub: the one given WithHub, or its own LocalHub.
func (s *Server) Hub() Hub { return s.cfg.hub }

// Methods returns the names of the registered methods, in no order.
func (s *Server) Methods() []string {
	table := s.methods.Load().byName
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	return names
}

// lookup finds the method a request names, or nil.
func (s *Server) lookup(r *request) *entry {
	if !r.escaped {
		return s.methods.Load().find(r.method)
	}
	var scratch [64]byte
	return s.methods.Load().find(jsontext.AppendUnquote(scratch[:0], r.method))
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
