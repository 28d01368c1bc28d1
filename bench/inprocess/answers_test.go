package inprocess

import (
	"testing"
	"time"
)

func TestEveryImplAnswersTheWorkloadAndTheBatchInOrder(t *testing.T) {
	for _, impl := range All() {
		t.Run(impl.Name, func(t *testing.T) {
			if err := Verify(impl); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCheckAnswerRefusesWrongAnswers(t *testing.T) {
	c := Workload[0]
	for _, raw := range []string{
		`{"jsonrpc":"2.0","result":4,"id":1}`,
		`{"jsonrpc":"2.0","result":3,"id":2}`,
		`{"jsonrpc":"1.0","result":3,"id":1}`,
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"x"},"id":1}`,
		`not json`,
	} {
		if checkAnswer([]byte(raw), c, 1) == nil {
			t.Errorf("%s accepted", raw)
		}
	}
	if err := checkAnswer([]byte(`{"jsonrpc":"2.0","id":1,"result":3.0}`), c, 1); err != nil {
		t.Error(err)
	}
}

func TestMeasureCountsCallsFromEveryGoroutine(t *testing.T) {
	impl := Ours()
	for _, g := range []int{1, 2} {
		c := Measure(impl, [][]byte{Batch(10, nil)}, 10, g, 5*time.Millisecond)
		if c.NsPerCall <= 0 || c.AllocsPerCall < 0 || c.BytesPerCall < 0 {
			t.Errorf("%d goroutines: %+v", g, c)
		}
	}
}

func TestGethRenameFollowsItsNamingRule(t *testing.T) {
	for in, want := range map[string]string{
		"add":                          "bench_add",
		"NullableFloatToNullableFloat": "bench_nullableFloatToNullableFloat",
		"StringMe":                     "bench_stringMe",
	} {
		if got := GethRename(in); got != want {
			t.Errorf("GethRename(%q) = %q, want %q", in, got, want)
		}
	}
}
