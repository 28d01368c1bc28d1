package body

import "testing"

func TestIsJSONContentType(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                  true,
		"application/json;charset=utf-8":    true,
		" application/json ; charset=UTF-8": true,
		"APPLICATION/JSON":                  true,
		"application/json-rpc":              true,
		"application/jsonrequest":           true,
		"Application/JSONRequest; q=1":      true,
		"application/jsonrequestx":          false,
		"application/jsonx":                 false,
		"application/x-www-form-urlencoded": false,
		"text/json":                         false,
		"":                                  false,
		"application":                       false,
	} {
		if got := IsJSONContentType(ct); got != want {
			t.Errorf("IsJSONContentType(%q) = %v, want %v", ct, got, want)
		}
	}
}
