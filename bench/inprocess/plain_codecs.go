package inprocess

import (
	"encoding/json"

	gojson "github.com/goccy/go-json"
)

// StdJSON is the plain dispatcher on encoding/json.
func StdJSON() Impl {
	return plainImpl("stdjson", codec{unmarshal: json.Unmarshal, marshal: json.Marshal})
}

// GoccyJSON is the plain dispatcher on github.com/goccy/go-json.
func GoccyJSON() Impl {
	return plainImpl("goccy", codec{unmarshal: gojson.Unmarshal, marshal: gojson.Marshal})
}
