package msgload

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
)

// Expect maps request ids to the encoded result their answers must carry.
type Expect map[int64]string

// Workload returns the five benchmark requests (inprocess.Workload), ids 1
// to 5, with the method names passed through rename (nil keeps them), and
// their answers.
func Workload(rename func(string) string) ([][]byte, Expect) {
	expect := Expect{}
	for i, c := range inprocess.Workload {
		expect[int64(i+1)] = c.Result
	}
	return inprocess.Requests(rename), expect
}

// Check fails unless answer is a JSON-RPC 2.0 success whose id is one of
// e's and whose result is that id's (the same bytes, or the same number).
func (e Expect) Check(answer []byte) error {
	id, _ := Member(answer, `"id":`)
	n, err := strconv.ParseInt(string(id), 10, 64)
	want, known := e[n]
	got, ok := Member(answer, `"result":`)
	switch {
	case !bytes.Contains(answer, []byte(`"jsonrpc":"2.0"`)):
		return fmt.Errorf("not a JSON-RPC 2.0 answer: %.200s", answer)
	case err != nil || !known:
		return fmt.Errorf("no id of a request: %.200s", answer)
	case !ok || !SameResult(got, want):
		return fmt.Errorf("id %d: result %s, want %s: %.200s", n, got, want, answer)
	}
	return nil
}

// SameResult reports whether the encoded result got is want: the same
// bytes, or the same number written another way.
func SameResult(got []byte, want string) bool {
	if string(got) == want {
		return true
	}
	g, err1 := strconv.ParseFloat(string(got), 64)
	w, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && g == w
}

// Prepared is Expect with the exact answers a compact server writes, in
// either member order (this server's, and go-ethereum's with the id
// first), known beforehand: such an answer is checked by comparing it with
// the few of its length, and any other as Expect.Check does. A load
// generator that checks every answer takes that much less of the
// processor it shares with the server.
type Prepared struct {
	expect Expect
	byLen  [][]string // the exact answers, by length
}

// Prepare returns e prepared.
func (e Expect) Prepare() *Prepared {
	p := &Prepared{expect: e}
	for id, result := range e {
		n := strconv.FormatInt(id, 10)
		for _, a := range []string{`{"jsonrpc":"2.0","result":` + result + `,"id":` + n + `}`,
			`{"jsonrpc":"2.0","id":` + n + `,"result":` + result + `}`} {
			if len(a) >= len(p.byLen) {
				p.byLen = append(p.byLen, make([][]string, len(a)+1-len(p.byLen))...)
			}
			p.byLen[len(a)] = append(p.byLen[len(a)], a)
		}
	}
	return p
}

// Check checks answer as Expect.Check does.
func (p *Prepared) Check(answer []byte) error {
	if a := trimLineEnd(answer); len(a) < len(p.byLen) {
		for _, exact := range p.byLen[len(a)] {
			if string(a) == exact {
				return nil
			}
		}
	}
	return p.expect.Check(answer)
}

// trimLineEnd is bytes.TrimRight(b, "\r\n") without building a set of the
// bytes for each answer.
func trimLineEnd(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Member returns the scalar value that follows key in doc: a string with
// its quotes, or the bytes up to the next comma or closing brace.
func Member(doc []byte, key string) ([]byte, bool) {
	i := bytes.Index(doc, []byte(key))
	if i < 0 {
		return nil, false
	}
	v := doc[i+len(key):]
	if len(v) > 0 && v[0] == '"' {
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case '\\':
				j++
			case '"':
				return v[:j+1], true
			}
		}
		return nil, false
	}
	end := bytes.IndexAny(v, ",}")
	if end <= 0 {
		return nil, false
	}
	return v[:end], true
}
