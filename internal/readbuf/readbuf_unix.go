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
	r.rawN, r.rawErr = 0, nil
	if err := r.raw.Read(r.readFD); err != nil {
		return 0, err
	}
	if r.rawErr != nil {
		return 0, os.NewSyscallError("read", r.rawErr)
	}
	return r.rawN, nil
}

// readDescriptor is readRaw's callback: it reads fd into a borrowed
// buffer, and reports false (wait for the poller) when nothing is there.
func (r *Reader) readDescriptor(fd uintptr) bool {
	buf := buffers.Get().(*[]byte)
	for {
		r.rawN, r.rawErr = syscall.Read(int(fd), *buf)
		if r.rawErr != syscall.EINTR {
			break
		}
	}
	if r.rawErr == syscall.EAGAIN {
		buffers.Put(buf)
		return false
	}
	r.borrowed = buf
	return true
}
