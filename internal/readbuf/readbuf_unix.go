//go:build unix

package readbuf

// readbuf_unix.go reads a socket's descriptor once the poller says it is
// readable, borrowing the buffer only then.

import (
	"os"
	"syscall"
)

// canReadRaw reports whether readRaw works on this platform.
const canReadRaw = true

// readRaw waits until the descriptor is readable, then borrows a buffer
// and reads into it.
func (r *Reader) readRaw() (int, error) {
	var n int
	var readErr error
	err := r.raw.Read(func(fd uintptr) bool {
		buf := buffers.Get().(*[]byte)
		for {
			n, readErr = syscall.Read(int(fd), *buf)
			if readErr != syscall.EINTR {
				break
			}
		}
		if readErr == syscall.EAGAIN {
			buffers.Put(buf)
			return false // wait for the poller
		}
		r.borrowed = buf
		return true
	})
	if err != nil {
		return 0, err
	}
	if readErr != nil {
		return 0, os.NewSyscallError("read", readErr)
	}
	return n, nil
}
