package rpccore_test

// strict_ref_test.go is the fuzz targets' reference for valid JSON, built
// on encoding/json rather than on this module's scanner.

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"
)

// strictValid reports whether doc is valid JSON as encoding/json/jsontext
// has it by default: encoding/json.Valid, and besides valid UTF-8, no
// escaped lone surrogate and no member name given twice in an object.
func strictValid(doc []byte) bool {
	return json.Valid(doc) && utf8.Valid(doc) && !hasLoneSurrogate(doc) && uniqueNames(doc)
}

// hasLoneSurrogate reports whether the valid JSON doc escapes a surrogate
// that is not half of a pair. Backslashes appear only in strings, so every
// escape is found by looking for them.
func hasLoneSurrogate(doc []byte) bool {
	hex := func(i int) uint64 {
		if i+4 > len(doc) {
			return 0
		}
		v, err := strconv.ParseUint(string(doc[i:i+4]), 16, 16)
		if err != nil {
			return 0
		}
		return v
	}
	for i := 0; i < len(doc); i++ {
		if doc[i] != '\\' {
			continue
		}
		i++
		if doc[i] != 'u' {
			continue
		}
		switch r := hex(i + 1); {
		case r >= 0xdc00 && r <= 0xdfff:
			return true
		case r >= 0xd800 && r <= 0xdbff:
			if i+10 >= len(doc) || doc[i+5] != '\\' || doc[i+6] != 'u' {
				return true
			}
			if low := hex(i + 7); low < 0xdc00 || low > 0xdfff {
				return true
			}
			i += 6
		}
		i += 4
	}
	return false
}

// uniqueNames reports whether no object of the valid JSON doc has a member
// name twice, with names unescaped by encoding/json's tokenizer.
func uniqueNames(doc []byte) bool {
	type frame struct {
		names    map[string]bool // nil for an array
		wantName bool
	}
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].names != nil {
			stack[n-1].wantName = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].wantName {
			if name, ok := tok.(string); ok {
				if stack[n-1].names[name] {
					return false
				}
				stack[n-1].names[name] = true
				stack[n-1].wantName = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{names: map[string]bool{}, wantName: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
