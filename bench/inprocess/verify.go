package inprocess

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// CheckAnswer fails unless raw is the answer to c with the given id: the
// JSON value {"jsonrpc":"2.0","result":c.Result,"id":id}, members in any
// order and numbers written any way.
func CheckAnswer(raw []byte, c Call, id int) error {
	var got, want any
	if err := json.Unmarshal(fmt.Appendf(nil, `{"jsonrpc":"2.0","result":%s,"id":%d}`, c.Result, id), &want); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &got); err != nil || !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s: answer %s, want result %s and id %d", c.Method, raw, c.Result, id)
	}
	return nil
}

// Verify sends impl each of the five requests and a batch of BatchSize and
// fails unless every answer is right and the batch's come in order.
func Verify(impl Impl) error {
	call, done := impl.NewCaller()
	defer done()
	for i, req := range Requests(impl.Rename) {
		if err := CheckAnswer(call(req), Workload[i], i+1); err != nil {
			return fmt.Errorf("%s: %w", impl.Name, err)
		}
	}
	var got []json.RawMessage
	if err := json.Unmarshal(call(Batch(BatchSize, impl.Rename)), &got); err != nil {
		return fmt.Errorf("%s: batch: %w", impl.Name, err)
	}
	if len(got) != BatchSize {
		return fmt.Errorf("%s: batch: %d answers, want %d", impl.Name, len(got), BatchSize)
	}
	for i, raw := range got {
		if err := CheckAnswer(raw, Workload[i%len(Workload)], i+1); err != nil {
			return fmt.Errorf("%s: batch item %d: %w", impl.Name, i, err)
		}
	}
	return nil
}
