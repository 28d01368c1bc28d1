package report

import (
	"bytes"
	"embed"
	"html/template"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// page is what the template reads.
type page struct {
	Doc    *schema.Doc
	Header string
	Goals  Table
	Sets   []pageSet
}

type pageSet struct {
	Set       *schema.Set
	Chart     string // path of the chart, relative to the page; empty for none
	Main      Table
	Secondary []Table
	Status    string
}

// HTML renders the page for d; charts maps set ids to chart paths relative
// to the page.
func HTML(d *schema.Doc, charts map[string]string) ([]byte, error) {
	p := page{Doc: d, Goals: GoalsTable(d, true)}
	for i := range d.Sets {
		s := &d.Sets[i]
		ps := pageSet{Set: s, Chart: charts[s.ID]}
		if s.Status == schema.Measured {
			ps.Main, ps.Secondary = MainTable(s, true), SecondaryTables(s)
		} else {
			ps.Status = statusLine(s)
		}
		p.Sets = append(p.Sets, ps)
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// templates holds page.html, the page with a table template of its own.
//
//go:embed page.html
var templates embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"load": load, "day": day, "duration": duration, "steal": Steal,
}).ParseFS(templates, "page.html"))
