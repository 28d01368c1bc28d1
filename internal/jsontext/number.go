package jsontext

// Number codecs, with fast paths for the numbers requests usually carry:
// short decimals that convert exactly, and integral results.

import (
	"math"
	"strconv"
	"unsafe"
)

// float64pow10 holds the powers of ten that float64 represents exactly.
var float64pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// float32pow10 holds the powers of ten that float32 represents exactly.
var float32pow10 = [...]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// decimal splits a JSON number without exponent into its digits as an
// integer and the count of fraction digits. ok is false for numbers with an
// exponent or more than 15 significant digits.
func decimal(raw []byte) (mant uint64, frac int, neg, ok bool) {
	i := 0
	if raw[0] == '-' {
		neg, i = true, 1
	}
	digits := 0
	for ; i < len(raw) && isDigit(raw[i]); i++ {
		mant = mant*10 + uint64(raw[i]-'0')
		digits++
	}
	if i < len(raw) && raw[i] == '.' {
		for i++; i < len(raw) && isDigit(raw[i]); i++ {
			mant = mant*10 + uint64(raw[i]-'0')
			digits++
			frac++
		}
	}
	return mant, frac, neg, i == len(raw) && digits <= 15
}

// ParseFloat64 converts a valid JSON number to the nearest float64.
// Short decimals take the exact path (one correctly rounded division);
// the rest go to strconv, whose error it returns for numbers out of range.
func ParseFloat64(raw []byte) (float64, error) {
	if mant, frac, neg, ok := decimal(raw); ok {
		f := float64(mant)
		if frac > 0 {
			f /= float64pow10[frac]
		}
		if neg {
			f = -f
		}
		return f, nil
	}
	return strconv.ParseFloat(bytesString(raw), 64)
}

// ParseFloat32 converts a valid JSON number to the nearest float32,
// rounding once (never through float64), as ParseFloat64 does.
func ParseFloat32(raw []byte) (float32, error) {
	if mant, frac, neg, ok := decimal(raw); ok && mant < 1<<24 && frac < len(float32pow10) {
		f := float32(mant)
		if frac > 0 {
			f /= float32pow10[frac]
		}
		if neg {
			f = -f
		}
		return f, nil
	}
	f, err := strconv.ParseFloat(bytesString(raw), 32)
	return float32(f), err
}

// ParseInt parses a JSON integer (no fraction or exponent) into an int64;
// ok is false for anything else and for integers out of range.
func ParseInt(raw []byte) (n int64, ok bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range digits {
		if !isDigit(c) {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// ParseUint parses a non-negative JSON integer into a uint64; ok is false
// for anything else and for integers out of range.
func ParseUint(raw []byte) (u uint64, ok bool) {
	if len(raw) == 0 || len(raw) > 20 {
		return 0, false
	}
	for _, c := range raw {
		if !isDigit(c) {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (math.MaxUint64-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	return u, true
}

// AppendFloat appends f, a float64 or (bits 32) a float32, the way
// encoding/json writes it: no exponent for ordinary magnitudes, the
// shortest form that reads back exactly. It reports false, appending
// nothing, when f is NaN or infinite, which JSON cannot represent.
func AppendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	if out, ok := appendIntegral(dst, f); ok && (bits == 64 || math.Abs(f) < 1<<24) {
		return out, true
	}
	if out, ok := appendShortDecimal(dst, f, bits); ok {
		return out, true
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// Shorten e-09 to e-9, as encoding/json does.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// appendIntegral appends f when it is an integer that float64 holds
// exactly, and reports whether it did.
func appendIntegral(dst []byte, f float64) ([]byte, bool) {
	if f <= -1<<53 || f >= 1<<53 {
		return dst, false
	}
	n := int64(f)
	if float64(n) != f || (n == 0 && math.Signbit(f)) {
		return dst, false
	}
	return strconv.AppendInt(dst, n, 10), true
}

// appendShortDecimal appends f in plain decimal notation when a few exact
// multiplications find it to be a decimal of at most 15 significant digits
// (6 for float32), and reports whether it did. Such a decimal reads back as
// f, and since no two decimals that short round to the same float, it is
// the shortest that does, the one strconv would write. Other values are
// left to strconv.
func appendShortDecimal(dst []byte, f float64, bits int) ([]byte, bool) {
	a := math.Abs(f)
	if a < 1e-6 || a >= 1e15 {
		return dst, false
	}
	for k := 1; k <= 15; k++ {
		var m float64
		if bits == 32 {
			if k >= len(float32pow10) {
				return dst, false
			}
			m32 := float32(a) * float32pow10[k]
			if m32 >= 1e6 {
				return dst, false
			}
			if m32 != float32(uint32(m32)) { // below 1e6: the conversion truncates exactly
				continue
			}
			if m32/float32pow10[k] != float32(a) {
				return dst, false
			}
			m = float64(m32)
		} else {
			m = a * float64pow10[k]
			if m >= 1e15 {
				return dst, false
			}
			if m != float64(uint64(m)) { // below 1e15: the conversion truncates exactly
				continue
			}
			if m/float64pow10[k] != a {
				return dst, false
			}
		}
		return appendFixed(dst, f < 0, uint64(m), k), true
	}
	return dst, false
}

// appendFixed appends mant / 10^frac in decimal, without trailing zeros.
func appendFixed(dst []byte, neg bool, mant uint64, frac int) []byte {
	for frac > 0 && mant%10 == 0 {
		mant /= 10
		frac--
	}
	// Digits from the right, two at a time, with the point and leading
	// zeros in place.
	var buf [24]byte
	i := len(buf)
	if frac > 0 {
		for ; frac >= 2; frac -= 2 {
			i -= 2
			putDigitPair(buf[i:], mant%100)
			mant /= 100
		}
		if frac == 1 {
			i--
			buf[i] = byte('0' + mant%10)
			mant /= 10
		}
		i--
		buf[i] = '.'
	}
	for mant >= 100 {
		i -= 2
		putDigitPair(buf[i:], mant%100)
		mant /= 100
	}
	if mant >= 10 {
		i -= 2
		putDigitPair(buf[i:], mant)
	} else {
		i--
		buf[i] = byte('0' + mant)
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return append(dst, buf[i:]...)
}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"4041424344454647484950515253545556575859606162636465666768697071727374757677787980818283848586878889" +
	"90919293949596979899"

// putDigitPair writes the two digits of n < 100 to b.
func putDigitPair(b []byte, n uint64) {
	b[0], b[1] = digitPairs[2*n], digitPairs[2*n+1]
}

// bytesString views b as a string without copying. The string must not
// outlive b's contents.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
