package openrpc

// schema.go is the JSON Schema object (draft 7, the dialect OpenRPC 1.3
// documents use) as the generator writes it: only the keywords it needs,
// in a fixed order, properties in field order.

import (
	"bytes"
	"encoding/json"
)

// schema is one JSON Schema. The zero schema, {}, accepts any value.
type schema struct {
	Ref                  string          `json:"$ref,omitempty"`
	Description          string          `json:"description,omitempty"`
	Type                 string          `json:"type,omitempty"`
	Format               string          `json:"format,omitempty"`
	ContentEncoding      string          `json:"contentEncoding,omitempty"`
	Enum                 []string        `json:"enum,omitempty"`
	Minimum              json.Number     `json:"minimum,omitempty"`
	Maximum              json.Number     `json:"maximum,omitempty"`
	Items                *schema         `json:"items,omitempty"`
	MinItems             *int            `json:"minItems,omitempty"`
	MaxItems             *int            `json:"maxItems,omitempty"`
	Properties           properties      `json:"properties,omitempty"`
	Required             []string        `json:"required,omitempty"`
	AdditionalProperties *schema         `json:"additionalProperties,omitempty"`
	AnyOf                []*schema       `json:"anyOf,omitempty"`
	Default              json.RawMessage `json:"default,omitempty"`
}

// property is one member of a schema's properties.
type property struct {
	name   string
	schema *schema
}

// properties are an object schema's members, kept in order.
type properties []property

// MarshalJSON writes the properties as an object, in their order.
func (ps properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := marshal(p.name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		s, err := marshal(p.schema)
		if err != nil {
			return nil, err
		}
		b.Write(s)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// nullSchema accepts null alone.
func nullSchema() *schema { return &schema{Type: "null"} }

// orNull returns a schema accepting what s accepts and null.
func orNull(s *schema) *schema {
	if s.acceptsNull() {
		return s
	}
	return &schema{AnyOf: []*schema{s, nullSchema()}}
}

// acceptsNull reports whether s accepts null as far as one look tells:
// the empty schema, the null schema, or an anyOf with one of them.
func (s *schema) acceptsNull() bool {
	if s.Type == "null" || s.isEmpty() {
		return true
	}
	for _, alt := range s.AnyOf {
		if alt.Type == "null" {
			return true
		}
	}
	return false
}

// isEmpty reports whether s is {}, which accepts anything.
func (s *schema) isEmpty() bool {
	return s.Ref == "" && s.Type == "" && s.Enum == nil && s.AnyOf == nil && s.Properties == nil &&
		s.Items == nil && s.AdditionalProperties == nil
}

// marshal encodes v as JSON without escaping <, > and &, which
// descriptions use.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
