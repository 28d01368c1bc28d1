package rpccore

// walk.go iterates over arrays and objects that the scan has already
// validated, so it only needs to find where each value ends.

// skipValid returns the offset just past the value starting at buf[i]
// (after whitespace), for validated JSON.
func skipValid(buf []byte, i int) int {
	for isSpace(buf[i]) {
		i++
	}
	switch buf[i] {
	case '"':
		return skipValidString(buf, i)
	case '{', '[':
		depth := 0
		for ; i < len(buf); i++ {
			switch buf[i] {
			case '"':
				i = skipValidString(buf, i) - 1
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

// skipValidString returns the offset just past the string starting at buf[i].
func skipValidString(buf []byte, i int) int {
	for i++; ; i++ {
		switch buf[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// nextNonSpace returns the offset of the first non-space byte at or after i.
func nextNonSpace(buf []byte, i int) int {
	for i < len(buf) && isSpace(buf[i]) {
		i++
	}
	return i
}

// eachElement calls fn with each element of the validated array arr, in
// order, until fn returns false.
func eachElement(arr []byte, fn func(el []byte) bool) {
	i := nextNonSpace(arr, 1)
	if arr[i] == ']' {
		return
	}
	for {
		i = nextNonSpace(arr, i)
		end := skipValid(arr, i)
		if !fn(arr[i:end]) {
			return
		}
		i = nextNonSpace(arr, end)
		if arr[i] == ']' {
			return
		}
		i++ // ','
	}
}

// eachMember calls fn with the raw key contents (between the quotes, still
// escaped) and the raw value of each member of the validated object obj.
func eachMember(obj []byte, fn func(key, val []byte) bool) {
	i := nextNonSpace(obj, 1)
	if obj[i] == '}' {
		return
	}
	for {
		i = nextNonSpace(obj, i)
		keyEnd := skipValidString(obj, i)
		key := obj[i+1 : keyEnd-1]
		i = nextNonSpace(obj, keyEnd) + 1 // ':'
		i = nextNonSpace(obj, i)
		end := skipValid(obj, i)
		if !fn(key, obj[i:end]) {
			return
		}
		i = nextNonSpace(obj, end)
		if obj[i] == '}' {
			return
		}
		i++ // ','
	}
}
