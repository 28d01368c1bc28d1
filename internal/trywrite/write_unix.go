//go:build unix

package trywrite

import (
	"errors"
	"syscall"
)

// supported says whether writeOnce writes.
const supported = true

// writeOnce makes one write system call on the non-blocking socket fd.
func writeOnce(fd uintptr, b []byte) (int, error) {
	n, err := syscall.Write(int(fd), b)
	if n < 0 {
		n = 0
	}
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR) {
		err = nil
	}
	return n, err
}
