package jsontext

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestNumberFastPathsAgreeWithEncodingJSON checks the fast number paths on
// random short decimals and random bit patterns: parsing against strconv,
// formatting against encoding/json.
func TestNumberFastPathsAgreeWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(text string) {
		t.Helper()
		raw := []byte(text)
		for _, bits := range []int{32, 64} {
			want, err := strconv.ParseFloat(text, bits)
			if err != nil || math.IsInf(want, 0) {
				continue
			}
			var got float64
			if bits == 32 {
				f, _ := ParseFloat32(raw)
				got = float64(f)
			} else {
				got, _ = ParseFloat64(raw)
			}
			if got != want {
				t.Fatalf("parse %s as float%d: got %v, want %v", text, bits, got, want)
			}
			wantText := encodingJSON(want, bits)
			gotText, _ := AppendFloat(nil, want, bits)
			if string(gotText) != wantText {
				t.Fatalf("format %v as float%d: got %s, want %s", want, bits, gotText, wantText)
			}
		}
	}
	for range 60000 {
		digits := rng.IntN(16) + 1
		mant := rng.Int64N(int64(math.Pow10(digits)))
		text := strconv.FormatInt(mant, 10)
		if frac := rng.IntN(len(text) + 3); frac > 0 {
			for len(text) <= frac {
				text = "0" + text
			}
			text = text[:len(text)-frac] + "." + text[len(text)-frac:]
		}
		if rng.IntN(2) == 0 {
			text = "-" + text
		}
		check(text)
	}
	for range 60000 {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		check(strconv.FormatFloat(f, 'g', -1, 64))
		check(strconv.FormatFloat(float64(float32(f)), 'g', -1, 32))
	}
}

// encodingJSON is how encoding/json writes f as a float of the given size:
// the reference.
func encodingJSON(f float64, bits int) string {
	var b []byte
	if bits == 32 {
		b, _ = json.Marshal(float32(f))
	} else {
		b, _ = json.Marshal(f)
	}
	return string(b)
}
