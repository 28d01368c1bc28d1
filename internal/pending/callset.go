package pending

// callSet is one shard's waiting calls by number. Numbers are handed out
// in order, so the calls waiting at once are mostly a window of recent
// numbers: a ring indexed by number holds them without hashing, and a map
// holds a call whose slot an older one still has (a call that waits while
// many newer ones come and go).
type callSet struct {
	ring     []*Call          // made by the first add
	overflow map[uint64]*Call // made by the first call whose slot is taken
	len      int
}

// ringSize is the number of slots of a callSet's ring (a power of two).
const ringSize = 64

// slot returns the ring index of call number n in a table of 1<<shift
// shards: the numbers of one shard are n, n+shards, n+2*shards, ...
func slot(n uint64, shift uint) uint64 { return (n >> shift) & (ringSize - 1) }

// add adds c, whose number is n.
func (s *callSet) add(n uint64, shift uint, c *Call) {
	if s.ring == nil {
		s.ring = make([]*Call, ringSize)
	}
	s.len++
	if i := slot(n, shift); s.ring[i] == nil {
		s.ring[i] = c
		return
	}
	if s.overflow == nil {
		s.overflow = map[uint64]*Call{}
	}
	s.overflow[n] = c
}

// get returns call number n, or nil.
func (s *callSet) get(n uint64, shift uint) *Call {
	if s.ring != nil {
		if c := s.ring[slot(n, shift)]; c != nil && c.n == n {
			return c
		}
	}
	return s.overflow[n]
}

// remove removes call number n, if it is there.
func (s *callSet) remove(n uint64, shift uint) {
	if s.ring != nil {
		if i := slot(n, shift); s.ring[i] != nil && s.ring[i].n == n {
			s.ring[i] = nil
			s.len--
			return
		}
	}
	if _, ok := s.overflow[n]; ok {
		delete(s.overflow, n)
		s.len--
	}
}

// each calls f for every call, and removes those for which f reports
// true.
func (s *callSet) each(f func(c *Call) (remove bool)) {
	for i, c := range s.ring {
		if c != nil && f(c) {
			s.ring[i] = nil
			s.len--
		}
	}
	for n, c := range s.overflow {
		if f(c) {
			delete(s.overflow, n)
			s.len--
		}
	}
}
