// Package jsontext holds the JSON text internals that the module's packages
// share: a validating scanner, string and number codecs, and helpers that
// walk JSON already validated. Its names follow Go's encoding/json/jsontext
// (AppendQuote, AppendUnquote, AppendFloat), and its functions work on
// byte slices in place: they append to a caller's buffer and never build
// values.
//
// # What is valid
//
// The scanner accepts exactly what encoding/json/jsontext accepts with its
// default options: RFC 8259's grammar, nesting up to [MaxDepth] levels, and
// the rules RFC 8259 §8.1 and RFC 7493 add and jsontext applies by default:
//
//   - every string (member names included) is valid UTF-8;
//   - no string holds an escaped lone surrogate ("\ud800", or a high
//     surrogate not followed by a low one);
//   - no object has the same member name twice, names compared after
//     unescaping ("a" and "\u0061" are the same name).
//
// # What it promises
//
// Validating never allocates, except for objects of more than 16 members,
// whose names are then kept in a map. [AppendQuote] never writes invalid
// UTF-8. The walking helpers ([SkipValue], [EachElement], [EachMember]) and
// [AppendUnquote] expect input that the scanner has accepted and do not
// check it again.
package jsontext
