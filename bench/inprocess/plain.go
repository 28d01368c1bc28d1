package inprocess

import (
	"bytes"
	"encoding/json"
	"fmt"

	gojson "github.com/goccy/go-json"
)

// codec is the pair of functions a plain dispatcher encodes with.
type codec struct {
	unmarshal func([]byte, any) error
	marshal   func(any) ([]byte, error)
}

// plainRequest is a request object with its params and id kept raw.
type plainRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	ID      json.RawMessage `json:"id"`
}

// plainResponse is a response object; encode fills in its version, and
// null for an id it lacks.
type plainResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *plainError     `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

type plainError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// process answers one request document, single or batch.
func (c codec) process(doc []byte) []byte {
	doc = bytes.TrimSpace(doc)
	if len(doc) == 0 || doc[0] != '[' {
		return c.one(doc)
	}
	var items []json.RawMessage
	if err := c.unmarshal(doc, &items); err != nil {
		return c.encode(&plainResponse{Error: &plainError{-32700, "Parse error"}})
	}
	out := []byte{'['}
	for i, item := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, c.one(item)...)
	}
	return append(out, ']')
}

// one answers one request object.
func (c codec) one(doc []byte) []byte {
	var req plainRequest
	if err := c.unmarshal(doc, &req); err != nil {
		return c.encode(&plainResponse{Error: &plainError{-32700, "Parse error"}})
	}
	rsp := plainResponse{ID: req.ID}
	if req.JSONRPC != "2.0" || req.Method == "" {
		rsp.Error = &plainError{-32600, "Invalid Request"}
	} else {
		rsp.Result, rsp.Error = c.dispatch(req.Method, req.Params)
	}
	return c.encode(&rsp)
}

// dispatch runs the named method on params.
func (c codec) dispatch(method string, params json.RawMessage) (any, *plainError) {
	switch method {
	case "add":
		return withParams(c, params, func(p [2]float64) any { return p[0] + p[1] })
	case "addInt":
		return withParams(c, params, func(p [2]int) any { return p[0] + p[1] })
	case "NullableFloatToNullableFloat":
		return withParams(c, params, func(p [1]*float32) any { return p[0] })
	case "Test2":
		return withParams(c, params, func(p [1]float64) any { return p[0] })
	case "StringMe":
		return withParams(c, params, func(p [1]string) any { return p[0] })
	}
	return nil, &plainError{-32601, "Method not found"}
}

// withParams decodes params into a P and returns what method makes of it.
func withParams[P any](c codec, params json.RawMessage, method func(P) any) (any, *plainError) {
	var p P
	if err := c.unmarshal(params, &p); err != nil {
		return nil, &plainError{-32602, "Invalid params"}
	}
	return method(p), nil
}

// encode marshals rsp; a response always marshals.
func (c codec) encode(rsp *plainResponse) []byte {
	rsp.JSONRPC = "2.0"
	if len(rsp.ID) == 0 {
		rsp.ID = json.RawMessage("null")
	}
	b, err := c.marshal(rsp)
	if err != nil {
		panic(fmt.Errorf("plain dispatcher: marshal response: %w", err))
	}
	return b
}

// Plain returns the plain dispatcher on encoding/json ("stdjson") and on
// github.com/goccy/go-json ("goccy").
func Plain() []Impl {
	std, goccy := codec{json.Unmarshal, json.Marshal}, codec{gojson.Unmarshal, gojson.Marshal}
	return []Impl{
		{Name: "stdjson", NewCaller: func() (Caller, func()) { return std.process, func() {} }},
		{Name: "goccy", NewCaller: func() (Caller, func()) { return goccy.process, func() {} }},
	}
}
