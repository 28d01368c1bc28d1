package rpccore

// types.go holds the small value types methods use in their signatures.

import json "github.com/goccy/go-json"

// Nullable is a value that may be null (or, as a param, absent), without the
// allocation a pointer costs. It encodes as null when Valid is false.
type Nullable[T any] struct {
	// Value is the value when Valid is true.
	Value T
	// Valid reports whether Value is set.
	Valid bool
}

// Some returns a valid Nullable holding v.
func Some[T any](v T) Nullable[T] { return Nullable[T]{Value: v, Valid: true} }

// RawJSON is an encoded JSON value. As a param it receives the raw value
// (copied); as a result it is written as it is, after a validity check.
type RawJSON []byte

// MarshalJSON encodes the value, or null when it is not valid.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON decodes null as not valid and anything else into Value.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Nullable[T]{}
		return nil
	}
	if err := json.Unmarshal(b, &n.Value); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// MarshalJSON returns the raw value, or null when it is empty.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON keeps a copy of the raw value.
func (r *RawJSON) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}
