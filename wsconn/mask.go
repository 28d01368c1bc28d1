package wsconn

// mask.go makes the masking keys of a client's frames (RFC 6455, section
// 5.3): a fresh key for every frame, which the server, or a proxy the
// connection crosses, cannot predict.

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
)

// maskSource makes the masking keys of one client connection: a ChaCha8
// stream (cryptographically strong, and fast enough to key every frame
// without allocating) seeded from crypto/rand. It is not safe for
// concurrent use; the corkConn's lock guards it.
type maskSource struct {
	rng rand.ChaCha8
}

// newMaskSource returns a mask source with a seed of its own.
func newMaskSource() *maskSource {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // it never fails
	m := new(maskSource)
	m.rng.Seed(seed)
	return m
}

// next returns a fresh masking key.
func (m *maskSource) next() (key [4]byte) {
	binary.LittleEndian.PutUint32(key[:], uint32(m.rng.Uint64()))
	return key
}
