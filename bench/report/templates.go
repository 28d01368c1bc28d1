package report

import (
	"bytes"
	"embed"
	"html/template"
	"strings"
	text "text/template"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
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
