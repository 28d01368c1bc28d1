package report

import (
	"bytes"
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

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"load": load, "day": day, "duration": duration, "steal": Steal,
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Doc.Title}}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; } h3 { margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .92em; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
caption { caption-side: top; text-align: left; color: #555; padding-bottom: .3em; }
.goals td:first-child, .goals td:last-child { text-align: left; }
.met { color: #1a7f37; font-weight: 600; } .notmet { color: #b42318; font-weight: 600; }
img { max-width: 100%; border: 1px solid #eee; }
.note { color: #555; font-size: .92em; } .quick { background: #fff4d6; padding: .6em; }
</style>
</head>
<body>
<h1>{{.Doc.Title}}</h1>
{{with .Doc}}<p>Measured by <code>{{.Harness.Command}}</code> on {{day .Date}} ({{.Date}}):
{{.Machine.CPU}}, {{.Machine.CPUs}} CPUs, {{.Machine.MemoryGiB}} GiB, {{.Machine.OS}}/{{.Machine.Arch}};
{{.Versions.Go}}, Caddy {{.Versions.Caddy}} (bin/caddy built {{.Versions.CaddyBuilt}}), commit {{.Versions.Commit}};
load average {{load .Machine.LoadBefore}} before the run and {{load .Machine.LoadAfter}} after;
CPU steal {{steal .Machine.CPUSteal}} (the share of the CPUs' time the hypervisor gave to other machines);
{{duration .Harness.Seconds}} in all.
Data: <a href="benchmarks.json">benchmarks.json</a>.</p>
{{if .Quick}}<p class="quick">A quick run: every cell timed once, briefly. These figures say nothing of speed.</p>{{end}}
<ul class="note">{{range .Policy}}<li>{{.}}</li>{{end}}</ul>
<p class="note">Peers: {{range $m, $v := .Versions.Modules}}{{$m}} {{$v}}; {{end}}</p>{{end}}

<h2>Goals</h2>
<table class="goals"><tr>{{range .Goals.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Goals.Rows}}<tr>{{range $i, $c := .}}{{if eq $i 3}}<td class="{{if eq $c "met"}}met{{else}}notmet{{end}}">{{$c}}</td>{{else}}<td>{{$c}}</td>{{end}}{{end}}</tr>
{{end}}</table>

{{range .Sets}}<h2 id="{{.Set.ID}}">{{.Set.Title}}</h2>
{{if .Status}}<p>{{.Status}}</p>{{else}}
<p class="note">{{.Set.Harness}}.{{with .Set.Note}} {{.}}.{{end}} CPU steal while measured: {{steal .Set.CPUSteal}}.</p>
{{with .Chart}}<p><img src="{{.}}" alt="chart"></p>{{end}}
{{template "table" .Main}}
{{range .Secondary}}{{template "table" .}}{{end}}
{{end}}{{end}}
</body>
</html>
{{define "table"}}<table><caption>{{.Caption}}</caption><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
`))
