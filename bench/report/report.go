// Package report turns benchmarks.json into what people read: tables of
// every set (medians, ranges and ratios), the HTML page that shows them with
// the charts, and the README's performance block, which is generated from
// the JSON and never typed by hand.
package report

import (
	"bytes"
	"cmp"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"strings"
	text "text/template"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/chart"
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
	if s.Status == schema.Failed {
		return "failed: " + s.Error
	}
	return cmp.Or(s.Note, "not yet measured")
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

// Table is a set, or one metric of it, as rows of text.
type Table struct {
	Caption string   // says what the figures are
	Head    []string // names the columns; Rows hold one cell each
	Rows    [][]string
}

// Tables are the set's tables, one per metric, the main one first: a row
// per cell and a column per series. On the main metric each peer's figure
// is followed by how many times better ours is, and a median by its range
// only with ranges; on the others, a median always has its range.
func Tables(s *schema.Set, ranges bool) []Table {
	var out []Table
	seen := map[string]bool{}
	for _, r := range append([]schema.Series{{Metric: s.Metric.Name, Unit: s.Metric.Unit}}, s.Series...) {
		if main := r.Metric == s.Metric.Name; !seen[r.Metric] {
			seen[r.Metric] = true
			out = append(out, metricTable(s, r.Metric, r.Unit, main, ranges || !main))
		}
	}
	return out
}

// metricTable is the table of one metric, with ratios and ranges if asked.
func metricTable(s *schema.Set, metric, unit string, ratios, ranges bool) Table {
	t := Table{Caption: unit, Head: []string{s.XLabel}}
	var cols []*schema.Series
	for i, r := range s.Series {
		if r.Metric == metric {
			cols, t.Head = append(cols, &s.Series[i]), append(t.Head, r.Label)
		}
	}
	if ratios {
		t.Caption += "; median of the runs, and in parentheses how many times better ours is than that column" +
			" (against a ceiling, also the lowest and highest ratio of the runs paired in order)"
	}
	for _, x := range s.Cells {
		row := []string{x}
		for _, r := range cols {
			p := r.Point(x)
			if p == nil {
				row = append(row, "–")
				continue
			}
			cell := chart.Short(p.Median)
			if c := s.Comparison(s.Ours(), r.Name, x); ratios && c != nil {
				cell += " (" + Ratio(c.Ratio)
				if r.Role == schema.Ceiling && c.Low > 0 && c.High > c.Low {
					cell += ", pairs " + Ratio(c.Low) + "–" + Ratio(c.High)
				}
				cell += ")"
			}
			if ranges && len(p.Runs) > 1 {
				cell += fmt.Sprintf(" [%s–%s]", chart.Short(p.Low), chart.Short(p.High))
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Ratio formats a ratio: 164x, 98.7x, 1.01x.
func Ratio(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0fx", v)
	}
	if v >= 10 {
		return fmt.Sprintf("%.1fx", v)
	}
	return fmt.Sprintf("%.2fx", v)
}

// Markdown writes t as a Markdown table.
func (t Table) Markdown() string {
	row := func(r []string) string {
		return "| " + strings.ReplaceAll(strings.Join(r, "\x00"), "|", `\|`) + " |\n"
	}
	out := row(t.Head) + "| --- |" + strings.Repeat(" ---: |", len(t.Head)-1) + "\n"
	for _, r := range t.Rows {
		out += row(r)
	}
	return strings.ReplaceAll(out, "\x00", " | ")
}

// GoalsTable is the goals with what was measured and whether each is met;
// with detail, the cells each figure comes from.
func GoalsTable(d *schema.Doc, detail bool) Table {
	t := Table{Caption: "goals set by the issues", Head: []string{"goal", "issue", "measured", "met", "CPU steal"}}
	if detail {
		t.Head = append(t.Head, "from")
	}
	for _, g := range d.Goals {
		issue, verdict, steal := "–", map[bool]string{true: "met", false: "not met"}[g.Met], "–"
		if g.Issue != 0 {
			issue = fmt.Sprintf("#%d", g.Issue)
		}
		if s := d.Find(g.Set); s != nil {
			steal = Steal(s.CPUSteal)
		}
		row := []string{g.Text, issue, measured(g), verdict, steal}
		if detail {
			row = append(row, g.Detail)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// measured formats a goal's figure with its unit.
func measured(g schema.Goal) string {
	if strings.HasPrefix(g.Detail, "not measured") {
		return "not measured"
	}
	if g.Unit == "x" {
		return Ratio(g.Measured)
	}
	return chart.Short(g.Measured) + " " + g.Unit
}

// Steal formats a share of CPU time stolen as a percentage, "–" when
// unknown.
func Steal(share *float64) string {
	if share == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *share*100)
}
