package chart

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// logTicks marks every power of ten with a label, and 2 and 5 times it.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		v := math.Pow10(int(e))
		for _, m := range []float64{1, 2, 5} {
			if t := v * m; t >= lo && t <= hi {
				ticks = append(ticks, plot.Tick{Value: t, Label: Short(t)})
			}
		}
	}
	return ticks
}

// linearTicks labels gonum's default ticks in the short number format.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = Short(ticks[i].Value)
		}
	}
	return ticks
}

// Short formats a figure in at most about four characters of digits:
// 0.21, 3.5, 146, 14.4k, 1.51M.
func Short(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e6:
		return trim(v/1e6, a/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3, a/1e3) + "k"
	}
	return trim(v, a)
}

// trim formats v (of magnitude a) with three significant digits, and none
// after the point from 100 on, without trailing zeros.
func trim(v, a float64) string {
	s := strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(a)))), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
