package rpcclient

import (
	"strconv"
	"testing"
)

func TestObjectParams(t *testing.T) {
	var s ClientSubscription
	for params, want := range map[string]string{
		`["chat"]`:             `{"name":"chat"}`,
		`["ticks",2]`:          `{"name":"ticks","args":[2]}`,
		` [ "x" , 1, [2] ] `:   `{"name":"x","args":[ 1, [2] ]}`,
		`["a\"b",{"k":"]"}]`:   `{"name":"a\"b","args":[{"k":"]"}]}`,
		`[]`:                   "",
		`[1,"chat"]`:           "",
		`{"name":"chat"}`:      "",
		`["unterminated"`:      "",
		`["chat"] trailing`:    "",
		`["logs",{"a":1},"x"]`: `{"name":"logs","args":[{"a":1},"x"]}`,
	} {
		if got := string(s.objectParams([]byte(params), true)); got != want {
			t.Errorf("%s: %s, want %s", params, got, want)
		}
	}
	s.pos.reset([]byte(`{"epoch":"e1","offset":41}`))
	if got := string(s.objectParams([]byte(`["chat"]`), true)); got != `{"name":"chat","resume":{"epoch":"e1","offset":41}}` {
		t.Errorf("with a position: %s", got)
	}
	if got := string(s.objectParams([]byte(`["chat"]`), false)); got != `{"name":"chat"}` {
		t.Errorf("first subscribe with a position: %s", got)
	}
}

func TestPositionAdvance(t *testing.T) {
	var p position
	for _, step := range []struct {
		raw string
		new bool
	}{
		{`{"epoch":"a","offset":3}`, true},
		{`{"epoch":"a","offset":3}`, false},
		{`{"epoch":"a","offset":2}`, false},
		{`{"offset":4,"epoch":"a"}`, true},
		{`{"epoch":"a"}`, true}, // unreadable: let through, kept as it was
		{`{"epoch":"a","offset":4}`, false},
		{`{"epoch":"b","offset":1}`, true},
		{`{"epoch":"b","offset":-1}`, true},
		{`null`, true},
		{`{"epoch":"b","offset":1}`, false},
	} {
		if got := p.advance([]byte(step.raw)); got != step.new {
			t.Fatalf("%s: new %v", step.raw, got)
		}
	}
	if string(p.epoch) != `"b"` || p.offset != 1 {
		t.Fatalf("last %s %d", p.epoch, p.offset)
	}
	p.reset(nil)
	if p.known || !p.advance([]byte(`{"epoch":"b","offset":1}`)) {
		t.Fatal("reset kept the position")
	}
}

// TestNotificationPositionAllocates checks that a position costs a
// notification no allocation while its epoch stays.
func TestNotificationPositionAllocates(t *testing.T) {
	c := &Client{}
	c.subs.init()
	s := &ClientSubscription{client: c, wake: make(chan struct{}, 1)}
	c.subs.byID[`"0x1"`] = s
	plain := []byte(`{"subscription":"0x1","result":"hello"}`)
	var offset int
	var positioned []byte
	measure := func(params func() []byte) float64 {
		return testing.AllocsPerRun(1000, func() {
			s.queue = s.queue[:0]
			if !c.subs.notify(params()) {
				t.Fatal("not delivered")
			}
		})
	}
	without := measure(func() []byte { return plain })
	with := measure(func() []byte {
		offset++
		positioned = append(positioned[:0], `{"subscription":"0x1","result":"hello","position":{"epoch":"3f9a","offset":`...)
		positioned = strconv.AppendInt(positioned, int64(offset), 10)
		return append(positioned, "}}"...)
	})
	if with != without {
		t.Fatalf("%v allocations a notification with a position, %v without", with, without)
	}
}
