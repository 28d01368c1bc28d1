package rpccore

// jsonstr.go converts between JSON string literals and Go text.

import (
	"unicode/utf16"
	"unicode/utf8"
)

// unescapeInto appends the decoded form of the contents of a JSON string
// (without its quotes, already validated) to dst.
func unescapeInto(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hex4(s[i+2:]))
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = utf16.DecodeRune(r, rune(hex4(s[i+2:])))
					if r2 != utf8.RuneError {
						i += 6
					}
				}
				r = r2
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

// hex4 decodes four validated hex digits.
func hex4(b []byte) uint16 {
	var v uint16
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		v = v<<4 | uint16(c)
	}
	return v
}

// safeStringByte marks ASCII bytes that appear unescaped in a JSON string.
var safeStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s to dst as a JSON string literal, escaped as
// encoding/json does (but for HTML characters, left as they are), and
// returns the extended buffer.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if safeStringByte[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
