package load

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// ErrNotLoopback is returned for a target that is not on this machine.
var ErrNotLoopback = errors.New("load: only loopback targets are allowed")

// CheckLoopbackHost fails unless host is a loopback IP address or
// "localhost".
func CheckLoopbackHost(host string) error {
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: host %q", ErrNotLoopback, host)
}

// CheckLoopbackAddr fails unless addr is a host and port whose host is a
// loopback IP address or "localhost".
func CheckLoopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	return CheckLoopbackHost(host)
}

// LoopbackOnly is a net.Dialer Control function that refuses any resolved
// address that is not a loopback IP.
func LoopbackOnly(_, address string, _ syscall.RawConn) error { return CheckLoopbackAddr(address) }
