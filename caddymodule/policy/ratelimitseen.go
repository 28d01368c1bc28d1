package policy

// ratelimitseen.go keeps, on a node sharing a rate limit zone, which of
// the other nodes' report messages it counted: by node, by the numbers
// each node gives its messages in order. A copy of a message counted
// already is dropped; a gap in the numbers is a message this node missed
// (core NATS hands a message to the subscriptions of the moment: a node
// moving to another NATS server misses what is sent meanwhile), which it
// asks that node for again, a few times, and then gives up on.

import (
	"slices"
	"sync"
)

// maxAboveGap bounds the messages a node keeps counted past a gap: past
// that, the gap is given up on.
const maxAboveGap = 4096

// maxAsks is how often a node asks for a gap before it gives up on it.
const maxAsks = 5

// seenReports is what a node counted of the others' report messages.
type seenReports struct {
	mu     sync.Mutex
	nodes  map[string]*seenNode
	pruned int64 // when nodes silent for a window were last forgotten
}

// seenNode is what a node counted of one other node's messages.
type seenNode struct {
	upTo  uint64   // every message numbered up to this was counted, or given up on
	above []uint64 // the messages counted past a gap after upTo, in order
	sent  int64    // when the newest message counted was sent (Unix nanoseconds)
	asked int64    // when the gap after upTo was last asked for (Unix nanoseconds), or 0
	asks  int      // how often it was asked for
}

// first reports whether r is the first copy of its message to come, and
// notes it. now is Unix nanoseconds; nodes whose newest message is older
// than window are forgotten, once a window at most: a copy of one of
// their messages is older still, and dropped for its age.
func (s *seenReports) first(r *report, now, window int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now-s.pruned > window {
		for node, n := range s.nodes {
			if now-n.sent > window {
				delete(s.nodes, node)
			}
		}
		s.pruned = now
	}
	n := s.nodes[r.node]
	if n == nil {
		if s.nodes == nil {
			s.nodes = make(map[string]*seenNode)
		}
		n = &seenNode{}
		s.nodes[r.node] = n
	}
	if r.seq <= n.upTo {
		return false
	}
	i, found := slices.BinarySearch(n.above, r.seq)
	if found {
		return false
	}
	n.above = slices.Insert(n.above, i, r.seq)
	n.sent = max(n.sent, r.sent)
	n.close()
	if len(n.above) > maxAboveGap {
		n.giveUp()
	}
	return true
}

// close moves upTo over the messages counted right after it; a gap that
// closes, even in part, is asked for afresh.
func (n *seenNode) close() {
	i := 0
	for i < len(n.above) && n.above[i] == n.upTo+1 {
		n.upTo++
		i++
	}
	n.above = n.above[:copy(n.above, n.above[i:])]
	if i > 0 || len(n.above) == 0 {
		n.asked, n.asks = 0, 0
	}
}

// giveUp gives up on the gap after upTo.
func (n *seenNode) giveUp() {
	n.upTo = n.above[0] - 1
	n.close()
}

// gaps returns the nodes with a gap to ask for: not asked for yet, or
// asked for before again and still open; it notes them asked for now
// (Unix nanoseconds). A gap asked for maxAsks times already, and still
// open, is given up on.
func (s *seenReports) gaps(now, again int64) []nodeAfter {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []nodeAfter
	for node, n := range s.nodes {
		switch {
		case len(n.above) == 0 || n.asked >= again:
		case n.asks >= maxAsks:
			n.giveUp()
		default:
			n.asked = now
			n.asks++
			out = append(out, nodeAfter{node: node, after: n.upTo})
		}
	}
	return out
}

// unask forgets that the gaps of nodes were asked for: the ask did not go.
func (s *seenReports) unask(nodes []nodeAfter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, na := range nodes {
		if n := s.nodes[na.node]; n != nil && n.asks > 0 {
			n.asked = 0
			n.asks--
		}
	}
}

// known returns every node counted from, with the number up to which it
// counted all of that node's messages.
func (s *seenReports) known() []nodeAfter {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]nodeAfter, 0, len(s.nodes))
	for node, n := range s.nodes {
		out = append(out, nodeAfter{node: node, after: n.upTo})
	}
	return out
}
