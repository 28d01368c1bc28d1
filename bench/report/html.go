package report

import (
	"bytes"
	"embed"
	"html/template"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// HTML renders the page for d, which shows the chart of each measured set
// from charts/<id>.png beside the page.
func HTML(d *schema.Doc) ([]byte, error) {
	var buf bytes.Buffer
	err := pageTemplate.Execute(&buf, map[string]any{"Doc": d, "Goals": GoalsTable(d, true)})
	return buf.Bytes(), err
}

// templates holds page.html, the page with a table template of its own.
//
//go:embed page.html
var templates embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"load": load, "day": day, "duration": duration, "steal": Steal,
	"main":      func(s schema.Set) Table { return MainTable(&s, true) },
	"secondary": func(s schema.Set) []Table { return SecondaryTables(&s) },
	"status":    func(s schema.Set) string { return statusLine(&s) },
}).ParseFS(templates, "page.html"))
