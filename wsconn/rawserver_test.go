package wsconn_test

// rawserver_test.go is a server that writes whatever frames a test asks
// for, masked ones included, and reads the client's frames one by one.

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gobwas/ws"
)

// rawListener runs serve on each loopback connection, for at most 10
// seconds, and returns the address listened on.
func rawListener(t testing.TB, serve func(conn net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				serve(conn)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	return l.Addr().String()
}

// rawServer answers the handshake with github.com/gobwas/ws, runs serve
// on the connection, and returns the ws:// URL to dial.
func rawServer(t testing.TB, serve func(conn net.Conn)) string {
	t.Helper()
	return "ws://" + rawListener(t, func(conn net.Conn) {
		if _, err := ws.Upgrade(conn); err != nil {
			t.Errorf("upgrade: %v", err)
			return
		}
		serve(conn)
	})
}

// readClientFrame reads the client's next frame, which must be masked, and
// unmasks its payload.
func readClientFrame(conn net.Conn) (ws.Frame, error) {
	f, err := ws.ReadFrame(conn)
	if err != nil {
		return f, err
	}
	if !f.Header.Masked {
		return f, fmt.Errorf("the client wrote an unmasked %v frame", f.Header.OpCode)
	}
	ws.Cipher(f.Payload, f.Header.Mask, 0)
	return f, nil
}

// awaitClientClose reads the client's frames until its close frame, and
// returns the status in it.
func awaitClientClose(conn net.Conn) (ws.StatusCode, error) {
	for {
		f, err := readClientFrame(conn)
		if err != nil {
			return 0, err
		}
		if f.Header.OpCode == ws.OpClose {
			code, _ := ws.ParseCloseFrameData(f.Payload)
			return code, nil
		}
	}
}
