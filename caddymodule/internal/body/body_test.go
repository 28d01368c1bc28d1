package body

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func TestReadBody(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		length   int64 // -1: unknown
		limit    int64
		tooLarge bool
	}{
		{"empty", "", 0, 10, false},
		{"at the limit, length known", "0123456789", 10, 10, false},
		{"at the limit, length unknown", "0123456789", -1, 10, false},
		{"over the limit, length unknown", "0123456789a", -1, 10, true},
		{"declared over the limit", "0123456789a", 11, 10, true},
		{"larger than the first buffer", strings.Repeat("x", 3*initialBufferSize+7), -1, 1 << 20, false},
		{"larger than the first buffer, known", strings.Repeat("x", 3*initialBufferSize+7), 3*initialBufferSize + 7,
			1 << 20, false},
		{"over a limit above the first buffer", strings.Repeat("x", initialBufferSize*3), -1, initialBufferSize * 2, true},
	}
	for _, tt := range tests {
		for _, reader := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"one byte at a time", iotest.OneByteReader},
			{"data with EOF", iotest.DataErrReader},
		} {
			t.Run(tt.name+"/"+reader.name, func(t *testing.T) {
				buf := Get()
				defer Put(buf)
				err := Read(reader.wrap(strings.NewReader(tt.body)), tt.length, tt.limit, buf)
				if tt.tooLarge {
					if he, ok := errors.AsType[caddyhttp.HandlerError](err); !ok || he.StatusCode != 413 {
						t.Fatalf("error %v, want a 413", err)
					}
					if int64(len(*buf)) > tt.limit+1 {
						t.Errorf("read %d bytes, limit %d", len(*buf), tt.limit)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(*buf, []byte(tt.body)) {
					t.Errorf("read %d bytes, want %d", len(*buf), len(tt.body))
				}
			})
		}
	}
}

func TestReadBodyFromAnEmptyBuffer(t *testing.T) {
	var b []byte
	if err := Read(strings.NewReader("abc"), -1, 10, &b); err != nil || string(b) != "abc" {
		t.Errorf("got %q, %v", b, err)
	}
}

func TestPutBufferDropsLargeBuffers(t *testing.T) {
	big := make([]byte, 0, maxPooledBufferSize+1)
	Put(&big) // must not be kept; nothing to observe but no panic
	small := Get()
	if cap(*small) > maxPooledBufferSize {
		t.Errorf("the pool returned a buffer of %d bytes", cap(*small))
	}
	*small = append(*small, "leftover"...)
	Put(small)
	if b := Get(); len(*b) != 0 {
		t.Errorf("Get returned %d bytes of content", len(*b))
	}
}

func TestGrowKeepsContent(t *testing.T) {
	b := grow([]byte("abc"), 100)
	if string(b) != "abc" || cap(b) < 100 {
		t.Errorf("grow: %q cap %d", b, cap(b))
	}
	if c := grow(b, 10); &c[0] != &b[0] {
		t.Error("grow reallocated a buffer large enough")
	}
}
