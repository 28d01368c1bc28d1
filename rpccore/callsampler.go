package rpccore

// callsampler.go picks the calls that are timed among those one goroutine
// answers one after another, with a random draw for each call timed
// rather than for each call.

import "math/rand/v2"

// callSampler times one call in n on average, the gaps between the calls
// timed drawn at random (uniformly from 1 to 2n-1), so that no pattern in
// the order of the calls decides which are timed. Its zero value times the
// first call. It is not safe for concurrent use: each goroutine answering
// calls in turn (a peer's reader) has its own.
type callSampler struct {
	left uint32 // calls until the next one timed, that one included
}

// next reports whether the next call is timed, for one call in n.
func (c *callSampler) next(n int) bool {
	if c.left > 1 {
		c.left--
		return false
	}
	c.left = 1 + rand.Uint32N(uint32(2*n-1))
	return true
}
