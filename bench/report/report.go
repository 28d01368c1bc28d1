// Package report turns benchmarks.json into what people read: tables of
// every set (medians, ranges and ratios), the HTML page that shows them with
// the charts, and the README's performance block, which is generated from
// the JSON and never typed by hand.
package report

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"strings"
	text "text/template"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// The markers around the generated block in README.md.
const (
	StartMarker = "<!-- bench:start -->"
	EndMarker   = "<!-- bench:end -->"
)

// HTML renders the page for d, which shows the chart of each measured set
// from charts/<id>.png beside the page.
func HTML(d *schema.Doc) ([]byte, error) {
	var buf bytes.Buffer
	err := pageTemplate.Execute(&buf, map[string]any{"Doc": d, "Goals": GoalsTable(d, true)})
	return buf.Bytes(), err
}

// ReadmeBlock is the Markdown of the README's performance block for d,
// without the markers: the run's header, the goals, and a table per set.
func ReadmeBlock(d *schema.Doc) (string, error) {
	var b strings.Builder
	err := blockTemplate.Execute(&b, d)
	return b.String(), err
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

// templates holds page.html, the page with a table template of its own,
// and block.md, the README's block.
//
//go:embed page.html block.md
var templates embed.FS

// funcs are the functions both templates call.
var funcs = map[string]any{
	"load": load, "day": day, "duration": duration, "steal": Steal, "status": statusLine, "goals": GoalsTable,
	"tables": func(s schema.Set, ranges bool) []Table { return Tables(&s, ranges) },
}

var (
	pageTemplate  = template.Must(template.New("page.html").Funcs(funcs).ParseFS(templates, "page.html"))
	blockTemplate = text.Must(text.New("block.md").Funcs(funcs).ParseFS(templates, "block.md"))
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

// day returns the date of an RFC 3339 time.
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
