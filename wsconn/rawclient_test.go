package wsconn_test

// rawclient_test.go is a client that writes whatever frames a test asks
// for, broken ones included, and reads the server's frames one by one.

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"
)

// rawClient is a WebSocket connection framed by hand, frame by frame.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	r    io.Reader
}

func dialRaw(t *testing.T, url string) *rawClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, br, _, err := ws.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var r io.Reader = conn
	if br != nil {
		r = io.MultiReader(br, conn)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawClient{t: t, conn: conn, r: r}
}

// frame is one frame for send: masked unless unmasked says otherwise.
type frame struct {
	op       ws.OpCode
	notFin   bool
	rsv      byte
	payload  []byte
	unmasked bool
	length   int64 // the length announced, when not len(payload)
}

// send writes the frames in one write.
func (c *rawClient) send(frames ...frame) {
	c.t.Helper()
	var b frameBuf
	for _, f := range frames {
		h := ws.Header{Fin: !f.notFin, Rsv: f.rsv, OpCode: f.op, Length: int64(len(f.payload)), Masked: !f.unmasked}
		if f.length != 0 {
			h.Length = f.length
		}
		p := append([]byte(nil), f.payload...)
		if h.Masked {
			h.Mask = ws.NewMask()
			ws.Cipher(p, h.Mask, 0)
		}
		if err := ws.WriteHeader(&b, h); err != nil {
			c.t.Fatal(err)
		}
		b = append(b, p...)
	}
	if _, err := c.conn.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// frameBuf gathers frames.
type frameBuf []byte

func (b *frameBuf) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// text is a final, masked text frame.
func text(s string) frame { return frame{op: ws.OpText, payload: []byte(s)} }

// closeFrame is a masked close frame with the status and reason.
func closeFrame(code uint16, reason string) frame {
	return frame{op: ws.OpClose, payload: append(binary.BigEndian.AppendUint16(nil, code), reason...)}
}

// next reads the server's next frame.
func (c *rawClient) next() (ws.Header, []byte) {
	c.t.Helper()
	h, err := ws.ReadHeader(c.r)
	if err != nil {
		c.t.Fatalf("reading a frame: %v", err)
	}
	if err := ws.CheckHeader(h, ws.StateClientSide); err != nil {
		c.t.Fatalf("the server wrote %+v: %v", h, err)
	}
	p := make([]byte, h.Length)
	if _, err := io.ReadFull(c.r, p); err != nil {
		c.t.Fatalf("reading a payload: %v", err)
	}
	return h, p
}

// expectClose reads frames until a close frame, which must hold want (0:
// no payload at all) and a valid reason, and returns its reason.
func (c *rawClient) expectClose(want ws.StatusCode) string {
	c.t.Helper()
	for {
		h, p := c.next()
		if h.OpCode != ws.OpClose {
			continue
		}
		if want == 0 {
			if len(p) != 0 {
				c.t.Fatalf("the server closed with %x, want an empty close frame", p)
			}
			return ""
		}
		code, reason := ws.ParseCloseFrameData(p)
		if code != want {
			c.t.Fatalf("the server closed with %d %q, want %d", code, reason, want)
		}
		if !utf8.ValidString(reason) {
			c.t.Fatalf("the server's close reason %q is not UTF-8", reason)
		}
		return reason
	}
}
