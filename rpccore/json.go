package rpccore

// json.go holds the package's exported JSON helpers.

import "github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"

// AppendString appends s to dst as a JSON string literal, escaped as
// encoding/json does (but for HTML characters, left as they are), and
// returns the extended buffer. Invalid UTF-8 becomes \ufffd.
func AppendString(dst []byte, s string) []byte { return jsontext.AppendQuote(dst, s) }

// Valid reports whether doc is one JSON value with nothing but whitespace
// around it, accepting exactly what encoding/json/jsontext accepts with its
// default options: RFC 8259's grammar, strings of valid UTF-8 without
// escaped lone surrogates, and objects without a member name given twice.
func Valid(doc []byte) bool { return jsontext.Valid(doc) }
