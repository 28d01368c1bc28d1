package streamconn

// contentlength.go reads messages framed by Content-Length headers:
//
//	Content-Length: 52\r\n
//	\r\n
//	{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// maxHeaderBytes bounds a message's header section, its final empty line
// left out.
const maxHeaderBytes = 1024

// headerEnd ends a header section: the end of its last line, then an
// empty line.
var headerEnd = []byte("\r\n\r\n")

// headerState is the header section read so far.
type headerState struct {
	buf []byte
}

// readContentLength appends the next message's body to dst.
func (c *Conn) readContentLength(dst []byte) ([]byte, error) {
	n, err := c.readHeader()
	if err != nil {
		return dst, err
	}
	if n > c.opts.MaxMessage {
		return dst, ErrMessageTooLarge
	}
	for n > 0 {
		if err := c.in.Fill(); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return dst, err
		}
		b := c.in.Buffered()
		take := min(n, len(b))
		dst = append(dst, b[:take]...)
		c.in.Consume(take)
		n -= take
	}
	return dst, nil
}

// readHeader reads a header section up to its empty line and returns the
// Content-Length it gives.
func (c *Conn) readHeader() (int, error) {
	h := &c.header
	h.buf = h.buf[:0]
	for {
		if err := c.in.Fill(); err != nil {
			if errors.Is(err, io.EOF) {
				if len(h.buf) == 0 {
					return 0, rpccore.ErrEndOfInput
				}
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		b := c.in.Buffered()
		if len(h.buf) == 0 {
			// Whitespace between messages is tolerated.
			skip := skipSpace(b)
			c.in.Consume(skip)
			if b = b[skip:]; len(b) == 0 {
				continue
			}
		}
		before := len(h.buf)
		h.buf = append(h.buf, b...)
		if end := bytes.Index(h.buf, headerEnd); end >= 0 {
			c.in.Consume(end + len(headerEnd) - before)
			n, err := 0, ErrBadFraming
			if end <= maxHeaderBytes {
				n, err = contentLength(h.buf[:end])
			}
			h.buf = h.buf[:0]
			if cap(h.buf) > maxHeaderBytes {
				h.buf = nil
			}
			return n, err
		}
		// Unended, the section is refused once it is surely over the limit
		// (its last three bytes may start the empty line), so that the
		// limit does not depend on how its bytes arrive.
		if len(h.buf) > maxHeaderBytes+len(headerEnd)-1 {
			return 0, ErrBadFraming
		}
		c.in.Consume(len(b))
	}
}

// contentLength reads the Content-Length of a header section (without its
// final empty line). Other fields are ignored.
func contentLength(header []byte) (int, error) {
	n := -1
	for line := range bytes.SplitSeq(header, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, ErrBadFraming
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue
		}
		v, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil || v < 0 || n >= 0 {
			return 0, ErrBadFraming
		}
		n = v
	}
	if n < 0 {
		return 0, ErrBadFraming
	}
	return n, nil
}
