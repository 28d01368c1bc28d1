package jsontext

// Duplicate member names: each object being scanned keeps the names seen so
// far, as offsets in a small array on the stack, and in a map once it has
// more members than the array holds.

import "math"

// Names is the set of member names of one object, for finding a name given
// twice. The zero value is an empty set.
type Names struct {
	n     int
	at    [16][2]int32 // start and end offsets of the names' contents
	esc   uint16       // bit k: name k holds escapes
	large map[string]struct{}
}

// Add records the name whose contents (between the quotes, already
// validated) are buf[start:end], escaped when they hold a backslash, and
// reports false when the set already holds that name, compared after
// unescaping.
func (ns *Names) Add(buf []byte, start, end int, escaped bool) bool {
	name := buf[start:end]
	if ns.large == nil {
		if ns.n < len(ns.at) && end <= math.MaxInt32 {
			for k := range ns.n {
				if sameName(name, buf[ns.at[k][0]:ns.at[k][1]], escaped, ns.esc>>k&1 != 0) {
					return false
				}
			}
			ns.at[ns.n] = [2]int32{int32(start), int32(end)}
			if escaped {
				ns.esc |= 1 << ns.n
			}
			ns.n++
			return true
		}
		ns.large = make(map[string]struct{}, 2*ns.n)
		for k := range ns.n {
			ns.large[string(unquoted(buf[ns.at[k][0]:ns.at[k][1]], ns.esc>>k&1 != 0))] = struct{}{}
		}
	}
	key := unquoted(name, escaped)
	if _, dup := ns.large[string(key)]; dup {
		return false
	}
	ns.large[string(key)] = struct{}{}
	return true
}

// sameName reports whether two name contents are the same name.
func sameName(a, b []byte, aEscaped, bEscaped bool) bool {
	if !aEscaped && !bEscaped {
		return string(a) == string(b)
	}
	var sa, sb [64]byte
	if aEscaped {
		a = AppendUnquote(sa[:0], a)
	}
	if bEscaped {
		b = AppendUnquote(sb[:0], b)
	}
	return string(a) == string(b)
}

// unquoted returns the name contents b unescaped.
func unquoted(b []byte, escaped bool) []byte {
	if !escaped {
		return b
	}
	return AppendUnquote(nil, b)
}
