package wsload

// conn.go holds the framing: masked text frames out, whole messages in,
// pings answered.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
)

// Conn is a client WebSocket connection. One goroutine reads; writes may
// come from any goroutine.
type Conn struct {
	nc net.Conn
	br *bufio.Reader

	wmu     sync.Mutex // guards bw, rng and scratch
	bw      *bufio.Writer
	rng     *rand.ChaCha8
	scratch []byte
}

// Opcodes of RFC 6455 section 5.2.
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

// ErrClosed is returned by ReadMessage when the server closed the
// connection with a close frame.
var ErrClosed = errors.New("wsload: connection closed by the server")

// maxMessage bounds a message read, against a confused server.
const maxMessage = 64 << 20

// newMaskSource returns the generator of masking keys.
func newMaskSource(seed [32]byte) *rand.ChaCha8 { return rand.NewChaCha8(seed) }

// Write queues one text message; Flush sends what is queued.
func (c *Conn) Write(msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrame(opText, msg)
}

// Flush sends the queued messages.
func (c *Conn) Flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.bw.Flush()
}

// Send writes one text message and flushes it.
func (c *Conn) Send(msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.writeFrame(opText, msg); err != nil {
		return err
	}
	return c.bw.Flush()
}

// WriteMany queues msgs and flushes them together, under one lock.
func (c *Conn) WriteMany(msgs ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, m := range msgs {
		if err := c.writeFrame(opText, m); err != nil {
			return err
		}
	}
	return c.bw.Flush()
}

// writeFrame appends one masked frame to bw; c.wmu is held.
func (c *Conn) writeFrame(op byte, payload []byte) error {
	var hdr [14]byte
	hdr[0] = 0x80 | op
	n := 2
	switch l := len(payload); {
	case l < 126:
		hdr[1] = 0x80 | byte(l)
	case l <= 0xFFFF:
		hdr[1] = 0x80 | 126
		binary.BigEndian.PutUint16(hdr[2:], uint16(l))
		n = 4
	default:
		hdr[1] = 0x80 | 127
		binary.BigEndian.PutUint64(hdr[2:], uint64(l))
		n = 10
	}
	key := uint32(c.rng.Uint64())
	binary.BigEndian.PutUint32(hdr[n:], key)
	n += 4
	if _, err := c.bw.Write(hdr[:n]); err != nil {
		return err
	}
	c.scratch = append(c.scratch[:0], payload...)
	mask(c.scratch, hdr[n-4:n])
	_, err := c.bw.Write(c.scratch)
	return err
}

// mask XORs p with the four-byte key, in place.
func mask(p, key []byte) {
	k := binary.LittleEndian.Uint32(key)
	k64 := uint64(k) | uint64(k)<<32
	i := 0
	for ; i+8 <= len(p); i += 8 {
		binary.LittleEndian.PutUint64(p[i:], binary.LittleEndian.Uint64(p[i:])^k64)
	}
	for ; i < len(p); i++ {
		p[i] ^= key[i&3]
	}
}

// ReadMessage appends the next text or binary message to dst[:0] and
// returns it. It answers pings, skips pongs, and returns ErrClosed for a
// close frame.
func (c *Conn) ReadMessage(dst []byte) ([]byte, error) {
	dst = dst[:0]
	for {
		fin, op, payload, err := c.readFrame(dst)
		if err != nil {
			return dst, err
		}
		switch op {
		case opPing:
			ping := append([]byte(nil), payload[len(dst):]...)
			c.wmu.Lock()
			err := c.writeFrame(opPong, ping)
			if err == nil {
				err = c.bw.Flush()
			}
			c.wmu.Unlock()
			if err != nil {
				return dst, err
			}
			continue
		case opPong:
			continue
		case opClose:
			return dst, ErrClosed
		}
		dst = payload
		if fin {
			return dst, nil
		}
	}
}

// readFrame reads one frame and appends its payload to dst.
func (c *Conn) readFrame(dst []byte) (fin bool, op byte, out []byte, err error) {
	var hdr [2]byte
	if _, err = io.ReadFull(c.br, hdr[:]); err != nil {
		return
	}
	fin, op = hdr[0]&0x80 != 0, hdr[0]&0x0F
	if op != opContinuation && op != opText && op != opBinary && op != opClose && op != opPing && op != opPong {
		return fin, op, dst, fmt.Errorf("wsload: opcode %#x", op)
	}
	length := uint64(hdr[1] & 0x7F)
	switch length {
	case 126:
		var b [2]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		length = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		length = binary.BigEndian.Uint64(b[:])
	}
	var key [4]byte
	masked := hdr[1]&0x80 != 0
	if masked {
		if _, err = io.ReadFull(c.br, key[:]); err != nil {
			return
		}
	}
	if length > maxMessage || uint64(len(dst))+length > maxMessage {
		return fin, op, dst, fmt.Errorf("wsload: message over %d bytes", maxMessage)
	}
	start := len(dst)
	dst = slices.Grow(dst, int(length))[:start+int(length)]
	if _, err = io.ReadFull(c.br, dst[start:]); err != nil {
		return
	}
	if masked {
		mask(dst[start:], key[:])
	}
	return fin, op, dst, nil
}

// Buffered is the number of bytes read from the network and not yet
// consumed: zero means the next read waits for the server.
func (c *Conn) Buffered() int { return c.br.Buffered() }

// Close closes the connection without a closing handshake.
func (c *Conn) Close() error { return c.nc.Close() }
