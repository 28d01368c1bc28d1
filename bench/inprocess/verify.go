package inprocess

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// answer is a response object as the checks read it.
type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	ID      json.RawMessage `json:"id"`
}

// CheckAnswer fails unless raw is the answer to c with the given id: version
// 2.0, that id, no error, and the result equal to c.Result as a JSON value.
func CheckAnswer(raw []byte, c Call, id int) error {
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("%s: answer %s: %v", c.Method, raw, err)
	}
	if a.JSONRPC != "2.0" || a.Error != nil || string(a.ID) != strconv.Itoa(id) {
		return fmt.Errorf("%s: answer %s, want result %s and id %d", c.Method, raw, c.Result, id)
	}
	var got, want any
	if err := json.Unmarshal(a.Result, &got); err != nil {
		return fmt.Errorf("%s: result %s: %v", c.Method, a.Result, err)
	}
	if err := json.Unmarshal([]byte(c.Result), &want); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%s: result %s, want %s", c.Method, a.Result, c.Result)
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
