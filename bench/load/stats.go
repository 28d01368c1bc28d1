package load

// stats.go turns recorded latencies into the reported figures.

import (
	"slices"
	"time"
)

// Latency summarises request latencies, in milliseconds.
type Latency struct {
	// P50 is the median.
	P50 float64 `json:"p50_ms"`
	// P90 is the 90th percentile.
	P90 float64 `json:"p90_ms"`
	// P99 is the 99th percentile.
	P99 float64 `json:"p99_ms"`
	// Max is the slowest request.
	Max float64 `json:"max_ms"`
	// Mean is the average.
	Mean float64 `json:"mean_ms"`
}

// summarise sorts lat and returns its percentiles (nearest rank).
func summarise(lat []time.Duration) Latency {
	if len(lat) == 0 {
		return Latency{}
	}
	slices.Sort(lat)
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	rank := func(p float64) float64 {
		i := int(p*float64(len(lat))+0.999999) - 1
		i = max(0, min(i, len(lat)-1))
		return ms(lat[i])
	}
	return Latency{
		P50:  rank(0.50),
		P90:  rank(0.90),
		P99:  rank(0.99),
		Max:  ms(lat[len(lat)-1]),
		Mean: ms(total / time.Duration(len(lat))),
	}
}

// ms converts d to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
