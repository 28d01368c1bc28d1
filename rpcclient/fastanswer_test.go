package rpcclient

import (
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// fastAnswerSeeds are answers in and out of the fast path's shapes.
var fastAnswerSeeds = []string{
	`{"jsonrpc":"2.0","result":3,"id":1}`,
	`{"jsonrpc":"2.0","id":12,"result":-1.5e3}`,
	`{"jsonrpc":"2.0","result":"Foo","id":5}`,
	`{"jsonrpc":"2.0","result":"a\"b","id":5}`,
	`{"jsonrpc":"2.0","result":null,"id":3}`,
	`{"jsonrpc":"2.0","result":true,"id":3}`,
	`{"jsonrpc":"2.0","result":tru,"id":3}`,
	`{"jsonrpc":"2.0","result":"` + "\xff" + `","id":3}`,
	`{"jsonrpc":"2.0","result":"\ud800","id":3}`,
	`{"jsonrpc":"2.0","result":1,"id":01}`,
	`{"jsonrpc":"2.0","result":1,"id":1,"id":2}`,
	`{"jsonrpc":"2.0","result":1,"id":1} `,
	`{"jsonrpc":"2.0","result":01,"id":1}`,
	`{"jsonrpc":"2.0","result":[1],"id":1}`,
	`{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":1}`,
}

func TestFastAnswerShapes(t *testing.T) {
	for _, seed := range fastAnswerSeeds {
		checkFastAnswer(t, []byte(seed))
	}
	var m incoming
	if !readFastAnswer([]byte(`{"jsonrpc":"2.0","result":3,"id":1}`), &m) || string(m.id) != "1" || string(m.result) != "3" {
		t.Fatalf("the canonical answer: %q %q", m.id, m.result)
	}
}

// checkFastAnswer checks that the fast path accepts only valid JSON text,
// and reads from it what the general path reads.
func checkFastAnswer(t *testing.T, msg []byte) {
	var fast incoming
	if !readFastAnswer(msg, &fast) {
		return
	}
	if !jsontext.Valid(msg) {
		t.Fatalf("the fast path took invalid JSON text %q", msg)
	}
	var slow incoming
	slow.read(msg)
	if string(fast.id) != string(slow.id) || string(fast.result) != string(slow.result) || slow.errObj != nil || slow.method != nil {
		t.Fatalf("%q: fast path id %q result %q, general path id %q result %q", msg, fast.id, fast.result, slow.id, slow.result)
	}
}

func FuzzFastAnswer(f *testing.F) {
	for _, seed := range fastAnswerSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkFastAnswer)
}

// FuzzDispatch feeds anything to the reader's dispatch: it never panics,
// and whatever is not valid JSON text is refused.
func FuzzDispatch(f *testing.F) {
	for _, seed := range fastAnswerSeeds {
		f.Add([]byte(seed))
	}
	for _, seed := range []string{
		`[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":2}]`,
		`{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":5}}`,
		`{"jsonrpc":"2.0","method":"client_answer","params":["q"],"id":"s1"}`,
		`[{"jsonrpc":"2.0","method":"x","id":1}]`, `[]`, `[1]`, `{}`, `null`, `{"id":null,"error":1}`,
	} {
		f.Add([]byte(seed))
	}
	c, err := newClient(defaultOptions())
	if err != nil {
		f.Fatal(err)
	}
	c.queue, c.slots = newSendQueue(), make(chan struct{}, 4)
	c.subs.init()
	c.calls.SetDeliverHook(c.delivered)
	f.Fuzz(func(t *testing.T, msg []byte) {
		if err := c.dispatch(msg); err == nil && !jsontext.Valid(msg) {
			t.Fatalf("dispatch took invalid JSON text %q", msg)
		}
	})
}
