// Package jsontext holds the JSON text internals that the module's packages
// share: a validating scanner, string and number codecs, and helpers that
// walk JSON already validated. Its names follow Go's encoding/json/jsontext
// (AppendQuote, AppendUnquote, AppendFloat), and its functions work on
// byte slices in place: they append to a caller's buffer and never build
// values.
//
// # What is valid
//
// The scanner accepts exactly what encoding/json.Valid accepts: RFC 8259's
// grammar, nesting up to [MaxDepth] levels.
//
// # What it promises
//
// Validating never allocates. [AppendQuote] never writes invalid UTF-8. The walking helpers ([SkipValue], [EachElement], [EachMember]) and
// [AppendUnquote] expect input that the scanner has accepted and do not
// check it again.
package jsontext
