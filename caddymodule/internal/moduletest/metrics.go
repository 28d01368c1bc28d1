package moduletest

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Gather returns the value of the series of family name whose labels
// include labels: a counter's value or a histogram's sample count. found
// is false when there is no such series.
func Gather(t testing.TB, reg prometheus.Gatherer, name string, labels map[string]string) (value float64, found bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := make(map[string]string)
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			return seriesValue(m), true
		}
	}
	return 0, false
}

// seriesValue is a counter's value or a histogram's sample count.
func seriesValue(m *dto.Metric) float64 {
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	if h := m.GetHistogram(); h != nil {
		return float64(h.GetSampleCount())
	}
	return 0
}
