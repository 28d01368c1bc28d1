//go:build !unix

package wsconn

// readbuf_other.go: where descriptors cannot be read directly, the
// borrowingReader reads through the connection and holds its buffer
// while it waits.

// canReadRaw reports whether readRaw works on this platform.
const canReadRaw = false

// readRaw is never called where canReadRaw is false.
func (r *borrowingReader) readRaw() (int, error) { panic("wsconn: no direct reads on this platform") }
