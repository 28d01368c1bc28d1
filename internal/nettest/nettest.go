// Package nettest holds helpers for the module's tests of network code.
package nettest

import (
	"net"
	"testing"
)

// TCPPair returns the two ends of a loopback TCP connection, closed at the
// end of the test.
func TCPPair(t testing.TB) (server, client net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() {
		server.Close()
		client.Close()
	})
	return server, client
}
