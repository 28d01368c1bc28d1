package wsconn

// read_fuzz_test.go feeds the server's frame reader arbitrary bytes from a
// client.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// scriptedConn is a client connection that sends in and then ends, and
// keeps what the server writes.
type scriptedConn struct {
	in  []byte
	out bytes.Buffer
}

func (c *scriptedConn) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.in)
	c.in = c.in[n:]
	return n, nil
}

func (c *scriptedConn) Write(p []byte) (int, error)         { return c.out.Write(p) }
func (c *scriptedConn) Close() error                        { return nil }
func (c *scriptedConn) LocalAddr() net.Addr                 { return &net.TCPAddr{} }
func (c *scriptedConn) RemoteAddr() net.Addr                { return &net.TCPAddr{} }
func (c *scriptedConn) SetDeadline(time.Time) error         { return nil }
func (c *scriptedConn) SetReadDeadline(time.Time) error     { return nil }
func (c *scriptedConn) SetWriteDeadline(time.Time) error    { return nil }
func (c *scriptedConn) readAll(t *testing.T) []ws.Frame     { return serverFrames(t, c.out.Bytes()) }
func maskedFrame(op ws.OpCode, fin bool, p []byte) []byte   { return frameBytes(op, fin, p, true) }
func unmaskedFrame(op ws.OpCode, fin bool, p []byte) []byte { return frameBytes(op, fin, p, false) }

// frameBytes is one frame as a client (masked) or a broken one (not)
// writes it.
func frameBytes(op ws.OpCode, fin bool, p []byte, masked bool) []byte {
	f := ws.NewFrame(op, fin, append([]byte(nil), p...))
	if masked {
		f = ws.MaskFrameInPlace(f)
	}
	b, err := ws.CompileFrame(f)
	if err != nil {
		panic(err)
	}
	return b
}

// serverFrames parses what the server wrote: whole frames, unmasked, as a
// server must write them.
func serverFrames(t *testing.T, out []byte) []ws.Frame {
	t.Helper()
	var frames []ws.Frame
	r := bytes.NewReader(out)
	for r.Len() > 0 {
		f, err := ws.ReadFrame(r)
		if err != nil {
			t.Fatalf("the server wrote a broken frame: %v (%q)", err, out)
		}
		if f.Header.Masked {
			t.Fatalf("the server wrote a masked frame: %+v", f.Header)
		}
		frames = append(frames, f)
	}
	return frames
}

// fuzzMaxMessage is the message limit of the fuzzed reader: small, so
// that the fuzzer reaches it.
const fuzzMaxMessage = 64

func FuzzReadMessage(f *testing.F) {
	call := []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	for _, seed := range [][]byte{
		maskedFrame(ws.OpText, true, call),
		append(maskedFrame(ws.OpText, false, call[:10]), maskedFrame(ws.OpContinuation, true, call[10:])...),
		append(maskedFrame(ws.OpText, false, call[:10]), append(maskedFrame(ws.OpPing, true, []byte("hi")),
			maskedFrame(ws.OpContinuation, true, call[10:])...)...),
		maskedFrame(ws.OpBinary, true, []byte("\xff\xfe")),
		maskedFrame(ws.OpText, true, []byte("\xff")),
		maskedFrame(ws.OpPing, true, nil),
		maskedFrame(ws.OpPong, true, []byte("x")),
		maskedFrame(ws.OpClose, true, ws.NewCloseFrameBody(ws.StatusNormalClosure, "bye")),
		maskedFrame(ws.OpClose, true, []byte{0x03, 0xe8, 0xff}),
		maskedFrame(ws.OpClose, true, []byte{0x03}),
		maskedFrame(ws.OpText, true, bytes.Repeat([]byte("a"), fuzzMaxMessage+1)),
		unmaskedFrame(ws.OpText, true, call),
		maskedFrame(ws.OpCode(3), true, nil),
		{0x81, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		nc := &scriptedConn{in: in}
		c := newConn(newCorkConn(nc, nil), ws.StateServerSide, Options{MaxMessage: fuzzMaxMessage, WriteTimeout: time.Second})
		var err error
		for range 1000 {
			var msg []byte
			if msg, err = c.ReadMessage(context.Background(), nil); err != nil {
				break
			}
			if len(msg) > fuzzMaxMessage {
				t.Fatalf("a message of %d bytes passed the limit of %d", len(msg), fuzzMaxMessage)
			}
		}
		if err == nil {
			return
		}
		closes := 0
		for _, fr := range nc.readAll(t) {
			switch fr.Header.OpCode {
			case ws.OpPong:
			case ws.OpClose:
				closes++
				checkSentClose(t, fr.Payload)
			default:
				t.Fatalf("the server wrote a %v frame to a client that sent no call", fr.Header.OpCode)
			}
		}
		if closes > 1 {
			t.Fatalf("the server wrote %d close frames", closes)
		}
	})
}

// checkSentClose checks a close frame's payload as the server sent it: a
// status that may be sent and a UTF-8 reason that fits.
func checkSentClose(t *testing.T, p []byte) {
	t.Helper()
	if len(p) == 0 {
		return
	}
	if len(p) == 1 || len(p) > ws.MaxControlFramePayloadSize {
		t.Fatalf("close payload of %d bytes", len(p))
	}
	code, reason := ws.ParseCloseFrameData(p)
	switch {
	case code < 1000 || code >= 5000, code == 1004, code == 1005, code == 1006, code == 1015:
		t.Fatalf("the server sent close status %d, which may not be sent", code)
	case !utf8.ValidString(reason):
		t.Fatalf("the server sent a close reason that is not UTF-8: %q", reason)
	}
}

// readAllMessages reads c until it fails (at most 1000 messages), calling
// Reframe after each message as a peer that finds none valid would, and
// returns the messages, the verdicts of Reframe and the error.
func readAllMessages(c *Conn) (msgs [][]byte, reframed []bool, err error) {
	for range 1000 {
		var msg []byte
		if msg, err = c.ReadMessage(context.Background(), nil); err != nil {
			return msgs, reframed, err
		}
		msgs = append(msgs, msg)
		reframed = append(reframed, c.Reframe())
	}
	return msgs, reframed, nil
}

// statusOf returns the close status of a failure, 0 for another error.
func statusOf(err error) StatusCode {
	var f *failure
	if errors.As(err, &f) {
		return f.code
	}
	return 0
}

// FuzzServedReadMessage reads the same client bytes as a connection Serve
// serves (UTF-8 left to Reframe, a failure's close frame left to Serve)
// and as one read directly: the same messages and the same failures come
// out, a text message that is not UTF-8 is the only one Reframe refuses,
// and nothing but pongs and an echoed close is written before Serve
// writes the failure's close frame.
func FuzzServedReadMessage(f *testing.F) {
	call := []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	for _, seed := range [][]byte{
		append(maskedFrame(ws.OpText, true, call), maskedFrame(ws.OpText, true, []byte("[\"\xff\"]"))...),
		append(maskedFrame(ws.OpText, false, []byte("[\"\xc3")), maskedFrame(ws.OpContinuation, true, []byte("\xa9\"]"))...),
		append(maskedFrame(ws.OpBinary, true, []byte("\xff")), maskedFrame(ws.OpText, true, []byte("\xed\xa0\x80"))...),
		append(maskedFrame(ws.OpText, true, call), maskedFrame(ws.OpText, true, bytes.Repeat([]byte("a"), fuzzMaxMessage+1))...),
		append(maskedFrame(ws.OpText, true, call), unmaskedFrame(ws.OpText, true, call)...),
		append(maskedFrame(ws.OpPing, true, nil), maskedFrame(ws.OpClose, true, []byte{0x03, 0xe8, 0xff})...),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		opts := Options{MaxMessage: fuzzMaxMessage, WriteTimeout: time.Second}
		direct := &scriptedConn{in: in}
		want, _, wantErr := readAllMessages(newConn(newCorkConn(direct, nil), ws.StateServerSide, opts))
		served := &scriptedConn{in: in}
		c := newConn(newCorkConn(served, nil), ws.StateServerSide, opts)
		c.served = true
		got, reframed, err := readAllMessages(c)

		if statusOf(wantErr) == StatusInvalidPayload && !errors.Is(wantErr, errBadClose) {
			// The direct reader refused a text message that is not UTF-8:
			// served, it is read, and Reframe refuses it.
			if len(got) != len(want)+1 || !reframed[len(want)] || utf8.Valid(got[len(want)]) {
				t.Fatalf("served: %d messages (Reframe %v), direct: %d and a 1007", len(got), reframed, len(want))
			}
			got, reframed = got[:len(want)], reframed[:len(want)]
		}
		if len(got) != len(want) {
			t.Fatalf("served: %d messages, direct: %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) || reframed[i] {
				t.Fatalf("message %d: served %q (Reframe %v), direct %q", i, got[i], reframed[i], want[i])
			}
		}
		if statusOf(err) != statusOf(wantErr) {
			t.Fatalf("served ended with %v, direct with %v", err, wantErr)
		}
		answersFirst := statusOf(err) != 0 && !errors.Is(err, errBadClose)
		if errors.Is(err, rpccore.ErrEndOfInput) != answersFirst {
			t.Fatalf("served ended with %v: answers first %v", err, errors.Is(err, rpccore.ErrEndOfInput))
		}
		for _, fr := range served.readAll(t) {
			if fr.Header.OpCode == ws.OpClose && answersFirst {
				t.Fatalf("a close frame written before the answers: %q", fr.Payload)
			}
		}
		var f *failure
		if answersFirst {
			if !errors.As(err, &f) || !f.answersFirst {
				t.Fatalf("served ended with %v: no close frame left for Serve", err)
			}
			checkSentClose(t, closeBody(f.code, f.err.Error()))
		}
	})
}
