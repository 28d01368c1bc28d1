package grpcpeer

import (
	"bytes"
	"testing"
)

func TestCodecCopiesWhatItReads(t *testing.T) {
	data := []byte("Foo")
	var m msg
	if err := (codec{}).Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	data[0] = 'X'
	if string(m.B) != "Foo" {
		t.Fatalf("the message shares gRPC's buffer: %q", m.B)
	}
	if b, err := (codec{}).Marshal(&m); err != nil || string(b) != "Foo" {
		t.Fatalf("%q %v", b, err)
	}
}

func TestEveryHandlerAnswersItsRequest(t *testing.T) {
	if len(calls) != 5 || len(serviceDesc.Methods) != 5 {
		t.Fatalf("%d calls, %d methods", len(calls), len(serviceDesc.Methods))
	}
	for _, c := range calls {
		got, err := c.handle(c.req)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: %x %v, want %x", c.name, got, err, c.want)
		}
		if c.name != "StringMe" {
			if _, err := c.handle(c.req[:1]); err == nil {
				t.Errorf("%s: a short request answered", c.name)
			}
		}
	}
}
