package wsconn

import (
	"testing"
)

// BenchmarkHoldTextFrame measures framing one message into the held
// buffer, without the network; a client's frame also takes a fresh mask,
// and its payload is masked as it is copied.
func BenchmarkHoldTextFrame(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"small", 35}, {"16KiB", 16 << 10}} {
		b.Run("server/"+size.name, func(b *testing.B) { benchHold(b, newCorkConn(nil, nil), size.n) })
		b.Run("client/"+size.name, func(b *testing.B) {
			c := newCorkConn(nil, nil)
			c.maskFrames()
			benchHold(b, c, size.n)
		})
	}
}

// benchHold holds an n-byte message in c b.N times, emptying the held
// buffer after each.
func benchHold(b *testing.B, c *corkConn, n int) {
	msg := make([]byte, n)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.holdTextFrame(msg); err != nil {
			b.Fatal(err)
		}
		*c.held = (*c.held)[:0]
	}
}
