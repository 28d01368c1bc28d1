//go:build !unix

package readbuf

// readbuf_other.go: where descriptors cannot be read directly, a Reader
// reads through the connection and holds its buffer while it waits.

// canReadRaw reports whether readRaw works on this platform.
const canReadRaw = false

// readRaw is never called where canReadRaw is false.
func (r *Reader) readRaw() (int, error) { panic("readbuf: no direct reads on this platform") }

// readDescriptor is never called where canReadRaw is false.
func (r *Reader) readDescriptor(uintptr) bool { panic("readbuf: no direct reads on this platform") }
