package report

import (
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/chart"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// GoalsTable is the goals with what was measured and whether each is met;
// with detail, the cells each figure comes from.
func GoalsTable(d *schema.Doc, detail bool) Table {
	t := Table{Caption: "goals set by the issues", Head: []string{"goal", "issue", "measured", "met", "CPU steal"}}
	if detail {
		t.Head = append(t.Head, "from")
	}
	for _, g := range d.Goals {
		row := []string{g.Text, issue(g), measured(g), verdict(g), setSteal(d, g.Set)}
		if detail {
			row = append(row, g.Detail)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// measured formats a goal's figure with its unit.
func measured(g schema.Goal) string {
	if g.Detail == "not measured" || len(g.Detail) > 13 && g.Detail[:13] == "not measured:" {
		return "not measured"
	}
	switch g.Unit {
	case "x":
		return Ratio(g.Measured)
	case "calls/s", "items/s":
		return chart.Short(g.Measured) + " " + g.Unit
	}
	return chart.Short(g.Measured) + " " + g.Unit
}

// setSteal formats the CPU steal while set id ran, "–" when unknown.
func setSteal(d *schema.Doc, id string) string {
	if s := d.Find(id); s != nil {
		return Steal(s.CPUSteal)
	}
	return "–"
}

// Steal formats a share of CPU time stolen as a percentage, "–" when
// unknown.
func Steal(share *float64) string {
	if share == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *share*100)
}

// issue names the issue that set a goal, "–" when none is recorded.
func issue(g schema.Goal) string {
	if g.Issue == 0 {
		return "–"
	}
	return fmt.Sprintf("#%d", g.Issue)
}

// verdict says whether a goal is met.
func verdict(g schema.Goal) string {
	if g.Met {
		return "met"
	}
	return "not met"
}
