package rpcclient

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// cutter forwards loopback TCP connections to a target; it can cut them
// all, and go down (refusing new ones) and come up again on its address.
type cutter struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	l     net.Listener
	conns []net.Conn
	wg    sync.WaitGroup
}

// startCutter forwards to target until the test ends.
func startCutter(t testing.TB, target string) *cutter {
	c := &cutter{t: t, target: target}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.addr = l.Addr().String()
	c.serve(l)
	t.Cleanup(c.down)
	return c
}

func (c *cutter) serve(l net.Listener) {
	c.mu.Lock()
	c.l = l
	c.mu.Unlock()
	c.wg.Go(func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", c.target)
			if err != nil {
				_ = in.Close()
				continue
			}
			c.mu.Lock()
			if c.l != l { // down meanwhile
				c.mu.Unlock()
				_, _ = in.Close(), out.Close()
				return
			}
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			c.wg.Go(func() { _, _ = io.Copy(out, in); _ = out.Close() })
			c.wg.Go(func() { _, _ = io.Copy(in, out); _ = in.Close() })
		}
	})
}

// cut closes every connection forwarded so far.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, nc := range c.conns {
		_ = nc.Close()
	}
	c.conns = nil
}

// down stops listening, cuts every connection and waits for them.
func (c *cutter) down() {
	c.mu.Lock()
	if c.l != nil {
		_ = c.l.Close()
		c.l = nil
	}
	c.mu.Unlock()
	c.cut()
	c.wg.Wait()
}

// up listens again on the same address.
func (c *cutter) up() {
	var l net.Listener
	var err error
	for range 100 {
		if l, err = net.Listen("tcp", c.addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	c.serve(l)
}
