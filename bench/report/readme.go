package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// The markers around the generated block in README.md.
const (
	StartMarker = "<!-- bench:start -->"
	EndMarker   = "<!-- bench:end -->"
)

// statusLine says why a set has no figures.
func statusLine(s schema.Set) string {
	switch {
	case s.Status == schema.Failed:
		return "failed: " + s.Error
	case s.Note != "":
		return s.Note
	}
	return "not yet measured"
}

// ReplaceBlock returns readme with the text between the markers replaced
// by block.
func ReplaceBlock(readme, block string) (string, error) {
	before, rest, ok := strings.Cut(readme, StartMarker+"\n")
	if !ok {
		return "", errors.New("README.md has no " + StartMarker + " marker")
	}
	if _, after, ok := strings.Cut(rest, EndMarker); ok {
		return before + StartMarker + "\n" + block + EndMarker + after, nil
	}
	return "", errors.New("README.md has no " + EndMarker + " marker after " + StartMarker)
}

func day(date string) string {
	d, _, _ := strings.Cut(date, "T")
	return d
}

// load formats a 1/5/15-minute load average.
func load(l []float64) string {
	if len(l) != 3 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f/%.2f/%.2f", l[0], l[1], l[2])
}

// duration formats seconds as "8 min 12 s".
func duration(s float64) string {
	n := int(s + 0.5)
	if n < 60 {
		return fmt.Sprintf("%d s", n)
	}
	return fmt.Sprintf("%d min %d s", n/60, n%60)
}
