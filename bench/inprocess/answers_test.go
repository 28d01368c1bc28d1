package inprocess

import (
	"encoding/json"
	"strconv"
	"testing"
)

// answer is a response object as the checks read it.
type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	ID      json.RawMessage `json:"id"`
}

// checkAnswer fails t unless raw answers call c with id.
func checkAnswer(t *testing.T, raw json.RawMessage, c Call, id int) {
	t.Helper()
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: answer %s: %v", c.Method, raw, err)
	}
	if a.JSONRPC != "2.0" || a.Error != nil || string(a.ID) != strconv.Itoa(id) {
		t.Fatalf("%s: answer %s, want result %s and id %d", c.Method, raw, c.Result, id)
	}
	var got, want any
	if err := json.Unmarshal(a.Result, &got); err != nil {
		t.Fatalf("%s: result %s: %v", c.Method, a.Result, err)
	}
	if err := json.Unmarshal([]byte(c.Result), &want); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("%s: result %s, want %s", c.Method, a.Result, c.Result)
	}
}

func TestEveryImplAnswersTheWorkload(t *testing.T) {
	for _, impl := range All() {
		t.Run(impl.Name, func(t *testing.T) {
			call, done := impl.NewCaller()
			defer done()
			for i, req := range Requests(impl.Rename) {
				checkAnswer(t, call(req), Workload[i], i+1)
			}
		})
	}
}

func TestEveryImplAnswersTheBatchInOrder(t *testing.T) {
	for _, impl := range All() {
		t.Run(impl.Name, func(t *testing.T) {
			call, done := impl.NewCaller()
			defer done()
			var got []json.RawMessage
			if err := json.Unmarshal(call(Batch(BatchSize, impl.Rename)), &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != BatchSize {
				t.Fatalf("%d answers, want %d", len(got), BatchSize)
			}
			for i, raw := range got {
				checkAnswer(t, raw, Workload[i%len(Workload)], i+1)
			}
		})
	}
}

func TestGethRenameFollowsItsNamingRule(t *testing.T) {
	for in, want := range map[string]string{
		"add":                          "bench_add",
		"NullableFloatToNullableFloat": "bench_nullableFloatToNullableFloat",
		"StringMe":                     "bench_stringMe",
	} {
		if got := gethRename(in); got != want {
			t.Errorf("gethRename(%q) = %q, want %q", in, got, want)
		}
	}
}
