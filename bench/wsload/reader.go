package wsload

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/gobwas/ws"
)

// Reader is a client WebSocket connection that sends little and reads
// much, for the flood and the nodes' subscribers, where the client reading
// is what bounds the figure: frame headers decoded by github.com/gobwas/ws
// out of a large buffer, and nothing else done per message. Reading
// through Conn (wsconn, which checks that every text message is UTF-8 and
// records signs of life) costs the flood about 15% of its rate on the
// project's machine. One goroutine reads; WriteMany may come from any
// goroutine.
type Reader struct {
	nc     io.ReadWriteCloser
	br     *bufio.Reader
	header [ws.MaxHeaderSize - 2]byte
	wmu    sync.Mutex // WriteMany and the pongs
}

// DialReader connects to a ws:// URL on loopback as Dial does,
// gobwas/ws making the opening handshake.
func DialReader(ctx context.Context, rawURL string) (*Reader, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	d := ws.Dialer{NetDial: netDialer.DialContext}
	nc, br, _, err := d.Dial(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("wsload: %s: %w", rawURL, err)
	}
	var r io.Reader = nc
	if br != nil { // what the server sent right after its answer
		early, _ := br.Peek(br.Buffered())
		r = io.MultiReader(bytes.NewReader(bytes.Clone(early)), nc)
		ws.PutReader(br)
	}
	return &Reader{nc: nc, br: bufio.NewReaderSize(r, 64<<10)}, nil
}

// WriteMany writes text messages, masked as a client's must be, a network
// write each.
func (r *Reader) WriteMany(msgs ...[]byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	for _, m := range msgs {
		if err := ws.WriteFrame(r.nc, ws.MaskFrame(ws.NewTextFrame(m))); err != nil {
			return err
		}
	}
	return nil
}

// ReadMessage reads the next text or binary message into dst[:0] and
// returns it. It answers pings, skips pongs, and fails for a close frame.
func (r *Reader) ReadMessage(dst []byte) ([]byte, error) {
	dst = dst[:0]
	state := ws.StateClientSide // server frames must not be masked
	for {
		h, err := ws.ReadHeaderBuffer(r.br, r.header[:])
		if err != nil {
			return dst, err
		}
		if err := ws.CheckHeader(h, state); err != nil {
			return dst, fmt.Errorf("wsload: %w", err)
		}
		if uint64(len(dst))+uint64(h.Length) > maxMessage {
			return dst, fmt.Errorf("wsload: message over %d bytes", maxMessage)
		}
		start := len(dst)
		payload := slices.Grow(dst, int(h.Length))[:start+int(h.Length)]
		if _, err := io.ReadFull(r.br, payload[start:]); err != nil {
			return dst, err
		}
		switch h.OpCode {
		case ws.OpPing:
			r.wmu.Lock()
			err := ws.WriteFrame(r.nc, ws.MaskFrame(ws.NewPongFrame(payload[start:])))
			r.wmu.Unlock()
			if err != nil {
				return dst, err
			}
			continue
		case ws.OpPong:
			continue
		case ws.OpClose:
			return dst, errors.New("wsload: connection closed by the server")
		}
		dst = payload
		if h.Fin {
			return dst, nil
		}
		state = state.Set(ws.StateFragmented)
	}
}

// Close closes the connection without a closing handshake.
func (r *Reader) Close() error { return r.nc.Close() }
