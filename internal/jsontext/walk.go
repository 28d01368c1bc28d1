package jsontext

// Walking JSON that the scanner has already accepted: only where each value
// ends needs finding.

// SkipValue returns the offset just past the value starting at buf[i]
// (after whitespace), for valid JSON.
func SkipValue(buf []byte, i int) int {
	i = SkipSpace(buf, i)
	switch buf[i] {
	case '"':
		return skipString(buf, i)
	case '{', '[':
		depth := 0
		for ; i < len(buf); i++ {
			switch buf[i] {
			case '"':
				i = skipString(buf, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	default: // number or literal
		for i < len(buf) && !delimiter[buf[i]] {
			i++
		}
		return i
	}
}

// delimiter marks the bytes that end a number or a literal.
var delimiter = [256]bool{',': true, '}': true, ']': true, ' ': true, '\n': true, '\r': true, '\t': true}

// skipString returns the offset just past the string starting at buf[i].
func skipString(buf []byte, i int) int {
	for i++; ; i++ {
		switch buf[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// EachElement calls fn with each element of the valid array arr, in
// order, until fn returns false.
func EachElement(arr []byte, fn func(el []byte) bool) {
	i := SkipSpace(arr, 1)
	if arr[i] == ']' {
		return
	}
	for {
		i = SkipSpace(arr, i)
		end := SkipValue(arr, i)
		if !fn(arr[i:end]) {
			return
		}
		i = SkipSpace(arr, end)
		if arr[i] == ']' {
			return
		}
		i++ // ','
	}
}

// EachMember calls fn with the raw name contents (between the quotes,
// still escaped) and the raw value of each member of the valid object obj,
// in order, until fn returns false.
func EachMember(obj []byte, fn func(name, val []byte) bool) {
	i := SkipSpace(obj, 1)
	if obj[i] == '}' {
		return
	}
	for {
		i = SkipSpace(obj, i)
		nameEnd := skipString(obj, i)
		name := obj[i+1 : nameEnd-1]
		i = SkipSpace(obj, nameEnd) + 1 // ':'
		i = SkipSpace(obj, i)
		end := SkipValue(obj, i)
		if !fn(name, obj[i:end]) {
			return
		}
		i = SkipSpace(obj, end)
		if obj[i] == '}' {
			return
		}
		i++ // ','
	}
}
