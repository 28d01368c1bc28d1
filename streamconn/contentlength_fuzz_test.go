package streamconn

// contentlength_fuzz_test.go reads arbitrary input framed by Content-Length
// headers.

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// fuzzMaxMessage is the message limit of the fuzzed reader: small, so
// that the fuzzer reaches it.
const fuzzMaxMessage = 64

// readContentLengthChunks reads the chunks, each written on its own,
// through a Content-Length Conn, and returns the messages and the error
// that ended reading.
func readContentLengthChunks(t *testing.T, chunks ...[]byte) ([]string, error) {
	t.Helper()
	server, client := net.Pipe()
	go func() {
		for _, c := range chunks {
			if len(c) > 0 {
				if _, err := client.Write(c); err != nil {
					break
				}
			}
		}
		client.Close()
	}()
	c := New(server, nil, Options{Framing: ContentLength, MaxMessage: fuzzMaxMessage})
	defer c.Close()
	var got []string
	for {
		msg, err := c.ReadMessage(context.Background(), nil)
		if err != nil {
			return got, err
		}
		if len(msg) > fuzzMaxMessage {
			t.Fatalf("a message of %d bytes passed the limit of %d", len(msg), fuzzMaxMessage)
		}
		got = append(got, string(msg))
	}
}

// FuzzContentLength checks that the messages read, and the error that
// ends reading, do not depend on how the bytes are split across reads,
// and that no message passes the limit.
func FuzzContentLength(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 2\r\n\r\n{}\r\nContent-Length: 3\r\n\r\n[1]",
		"content-length:1\r\nContent-Type: application/json\r\n\r\n1",
		"Content-Length: 65\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"X: y\r\n\r\n{}",
		"Content-Length: 5\r\n\r\n{}",
		" \r\n" + strings.Repeat("X-Pad: 1\r\n", 120) + "Content-Length: 2\r\n\r\n{}",
	} {
		f.Add([]byte(seed), uint16(7), uint16(30))
	}
	// testdata/fuzz holds a header section over the limit, cut where the
	// limit is passed.
	f.Fuzz(func(t *testing.T, in []byte, cut1, cut2 uint16) {
		whole, errWhole := readContentLengthChunks(t, in)
		a, b := int(cut1)%(len(in)+1), int(cut2)%(len(in)+1)
		if a > b {
			a, b = b, a
		}
		split, errSplit := readContentLengthChunks(t, in[:a], in[a:b], in[b:])
		if strings.Join(whole, "\x00") != strings.Join(split, "\x00") || !sameEnd(errWhole, errSplit) {
			t.Fatalf("read whole: %q (%v); split at %d and %d: %q (%v)", whole, errWhole, a, b, split, errSplit)
		}
	})
}

// sameEnd reports whether two errors that ended reading are the same
// kind of end.
func sameEnd(a, b error) bool {
	for _, target := range []error{ErrMessageTooLarge, ErrBadFraming} {
		if errors.Is(a, target) != errors.Is(b, target) {
			return false
		}
	}
	return true
}
